"""The package's version (pyproject.toml says the same); its own module so that any module may read it."""
__version__ = "0.1.0"
