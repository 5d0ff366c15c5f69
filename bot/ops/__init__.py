"""Operations: logs, metrics, telemetry, redaction of secrets, and how a process stops."""
