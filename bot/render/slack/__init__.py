"""Messages for Slack: Block Kit and mrkdwn for digests, cards, replies, the App Home."""
