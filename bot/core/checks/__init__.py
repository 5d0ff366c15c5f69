"""What a model wrote, checked: claims against the PR, sanitizing, prompt echoes, citations."""
