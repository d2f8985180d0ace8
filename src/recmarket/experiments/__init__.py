"""The experiment matrix of Appendix A.1 (Table 1) as named, declarative specs."""
