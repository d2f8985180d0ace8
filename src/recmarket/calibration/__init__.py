"""Fitting the offline agents' choice parameters to the behaviour stored in finished runs
(``recmarket calibrate``): observations read from stored role calls, one likelihood per
role model, and the calibrated ``[agents]`` tables with their fit report."""
