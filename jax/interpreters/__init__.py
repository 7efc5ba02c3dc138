"""Transformation interpreters and their rule tables."""
