"""koplc: a compiler toolchain for question answering over knowledge graphs."""

__version__ = "0.1.0"
