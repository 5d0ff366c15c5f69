"""Development kit: loopback fakes of GitHub, the model endpoint and Slack, and the tooling the
tests, the benchmark, the soak and the scripts share. Installed beside prdigest for development
(`make setup`); never part of the bot itself."""
