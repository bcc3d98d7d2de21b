"""SocialNav-SUB waypoint selection (paper App. 7.1, Figure 4, Table 3)."""
