"""Reference data: countries and their names, outlines, continents, cultural distance."""
