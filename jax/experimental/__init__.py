"""Experimental APIs (kept for code written against their original locations)."""
