"""The compose stage: building CultureMix variants from the warehouse's dish images."""
