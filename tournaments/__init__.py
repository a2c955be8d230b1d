"""The tournament runner: engines, schedules, the referee, statistics and records."""
