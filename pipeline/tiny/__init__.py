"""Tiny random models built in code (text, vision, text-to-image, image encoder), for tests and demos of the
real loading path."""
