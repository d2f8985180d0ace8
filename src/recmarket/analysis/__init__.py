"""Reading what runs stored: funnels, shares, and (later) bootstrap statistics."""
