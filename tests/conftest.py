"""Suite-wide settings.

Hypothesis runs without per-example deadlines and without the too-slow health check:
CI shares two cores with the cells the end-to-end tests start, so generation speed is
not something these tests can promise; what they check is unchanged.
"""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "gridd", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("gridd")
