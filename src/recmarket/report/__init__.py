"""Figures, tables and the self-contained HTML report, built from run stores alone."""
