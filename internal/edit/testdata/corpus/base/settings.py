"""Settings for the reporting service."""

import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent

DEBUG = os.environ.get("DEBUG", "0") == "1"

DATABASES = {
    "default": {
        "ENGINE": "postgresql",
        "NAME": os.environ.get("DB_NAME", "reports"),
        "HOST": os.environ.get("DB_HOST", "localhost"),
        "PORT": int(os.environ.get("DB_PORT", "5432")),
    },
}

CACHES = {
    "default": {
        "BACKEND": "redis",
        "LOCATION": os.environ.get("REDIS_URL", "redis://localhost:6379/0"),
        "TIMEOUT": 300,
    },
}

LOGGING = {
    "version": 1,
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
    },
    "root": {"handlers": ["console"], "level": "INFO"},
}


def feature_enabled(name):
    flags = os.environ.get("FEATURES", "")
    return name in [f.strip() for f in flags.split(",") if f.strip()]
