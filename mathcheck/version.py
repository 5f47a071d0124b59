"""The version of mathcheck (a value: read by the cache key, the JSON reports and the CLI)."""

__version__ = "0.1.0"
