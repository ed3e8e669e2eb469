"""The score stage: extraction of every answer and all metrics (origin, names, UACUISINE, CultureMix, answer
languages, the papers' rules)."""
