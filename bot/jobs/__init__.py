"""Jobs on a clock: each channel's digest at its local time, and each watcher's DM."""
