"""Strategy plug-ins: one module per game, stake progressions in ``betting``, the registry in
``base``."""
