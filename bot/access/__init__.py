"""Access: which repositories a channel or a person may be told about, and which names a reply may carry."""
