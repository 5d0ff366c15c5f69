"""What the model is shown and asked: prompts, the PR's context within its budget, drafts."""
