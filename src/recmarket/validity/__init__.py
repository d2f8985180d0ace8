"""The simulated user against real people: a held-out protocol on review data, the user's
roles scored on it beside simple baselines, and the validity card they make."""
