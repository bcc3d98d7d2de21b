"""socialbench: measure the social intelligence of embodied agents (SocialNav-SUB, RobotEQ)."""

__version__ = "0.1.0"
