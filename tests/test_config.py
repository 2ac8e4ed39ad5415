"""The settings: read once from an environment, refused at start when unusable."""

from pathlib import Path

import pytest

from service.config import ENVIRONMENT, Config, ConfigError


def test_an_empty_environment_gives_the_defaults():
    assert Config.from_env({}) == Config()


def test_every_setting_is_read_from_its_variable():
    environ = {
        "REDIS_URL": "redis://db:6380/2",
        "CLAIM_QUEUE_URL": "redis://queues:6379/0",
        "CLAIM_DATA_DIR": "/var/lib/claim",
        "CLAIM_PREFIX": "club",
        "CLAIM_RATE_LIMIT": "3/second",
        "WEBHOOK_ALLOW": "hooks.example.org",
        "SMTP_URL": "smtp://mail:25",
        "CLAIM_MAIL_FROM": "games@example.org",
        "CLAIM_PUBLIC_URL": "https://claim.example.org",
        "CLAIM_REMINDER_SHARE": "0.5",
        "CLAIM_WATCH_CAP": "7",
        "CLAIM_FSYNC": "everysec",
        "CLAIM_EXPERT_SECONDS": "0.5",
        "CLAIM_REPLICAS": "1",
        "CLAIM_HEADER_TIMEOUT": "5",
        "CLAIM_BODY_TIMEOUT": "12.5",
        "CLAIM_SENDING_CAP": "8",
        "CLAIM_TRUSTED_PROXIES": "10.0.0.0/8, ::1",
        "CLAIM_SIGNING_KEY": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        "CLAIM_ARCHIVE_URL": "postgresql://claim@db/claim",
        "CLAIM_ARCHIVE_AFTER": "3600",
        "CLAIM_CHALLENGE_EXPIRES": "120",
        "CLAIM_PLAYER_STREAMS": "2",
        "CLAIM_DEVICE_CAP": "5",
        "CLAIM_ACCOUNTS_PER_EMAIL": "1",
        "CLAIM_CHALLENGES_SENT": "3",
        "CLAIM_CHALLENGES_RECEIVED": "50",
        "CLAIM_ANALYSES_QUEUED": "1",
        "CLAIM_BREAK_DAYS": "14",
        "CLAIM_PUSH_ALLOW": "push.example.org",
        "CLAIM_VAPID_PRIVATE_KEY": "c2VjcmV0",
    }
    assert set(environ) == set(ENVIRONMENT.values())
    config = Config.from_env(environ)
    assert (config.redis_url, config.data_dir, config.prefix) == (
        "redis://db:6380/2",
        Path("/var/lib/claim"),
        "club",
    )
    assert (config.rate_limit, config.webhook_allow, config.smtp_url) == (
        "3/second",
        "hooks.example.org",
        "smtp://mail:25",
    )
    assert (config.mail_from, config.public_url) == (
        "games@example.org",
        "https://claim.example.org",
    )
    assert (config.reminder_share, config.watch_cap, config.fsync) == (0.5, 7, "everysec")
    assert (config.expert_seconds, config.replicas) == (0.5, 1)
    assert config.queue_url == "redis://queues:6379/0"
    assert (config.header_timeout, config.body_timeout, config.sending_cap) == (5, 12.5, 8)
    assert [str(network) for network in config.trusted_proxies] == ["10.0.0.0/8", "::1/128"]
    assert config.signing_key == environ["CLAIM_SIGNING_KEY"]
    assert (config.archive, config.archive_after) == ("postgresql://claim@db/claim", 3600.0)
    assert (config.challenge_expires, config.player_streams) == (120.0, 2)
    assert (config.device_cap, config.accounts_per_email) == (5, 1)
    caps = (config.challenges_sent, config.challenges_received, config.analyses_queued)
    assert caps == (3, 50, 1)
    assert config.break_days == 14
    assert (config.push_allow, config.vapid_private_key) == ("push.example.org", "c2VjcmV0")


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CLAIM_CHALLENGE_EXPIRES", "0"),
        ("CLAIM_CHALLENGE_EXPIRES", "inf"),
        ("CLAIM_CHALLENGE_EXPIRES", "ten minutes"),
        ("CLAIM_PLAYER_STREAMS", "0"),
        ("CLAIM_BREAK_DAYS", "-1"),
        ("CLAIM_BREAK_DAYS", "367"),
        ("CLAIM_PLAYER_STREAMS", "1.5"),
        ("CLAIM_DEVICE_CAP", "0"),
        ("CLAIM_DEVICE_CAP", "many"),
        ("CLAIM_ACCOUNTS_PER_EMAIL", "-1"),
        ("CLAIM_CHALLENGES_SENT", "0"),
        ("CLAIM_CHALLENGES_RECEIVED", "many"),
        ("CLAIM_ANALYSES_QUEUED", "-1"),
    ],
)
def test_a_challenge_stream_or_cap_setting_that_cannot_be_used_is_refused(variable, value):
    with pytest.raises(ConfigError, match=variable):
        Config.from_env({variable: value})


def test_the_archive_is_a_file_of_the_data_directory_unless_it_is_named(tmp_path):
    config = Config(data_dir=tmp_path / "data")
    assert config.archive == f"sqlite:///{tmp_path / 'data' / 'archive.sqlite3'}"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CLAIM_ARCHIVE_URL", "mysql://db/claim"),
        ("CLAIM_ARCHIVE_AFTER", "-1"),
        ("CLAIM_ARCHIVE_AFTER", "nan"),
        ("CLAIM_ARCHIVE_AFTER", "a day"),
    ],
)
def test_an_archive_setting_that_cannot_be_used_is_refused_naming_it(variable, value):
    with pytest.raises(ConfigError, match=variable):
        Config.from_env({variable: value})


def test_an_empty_rate_limit_or_push_allowlist_is_off_and_any_other_empty_value_the_default():
    environ = {variable: " " for variable in ENVIRONMENT.values()}
    config = Config.from_env(environ)
    assert (config.rate_limit, config.push_allow) == ("", "")
    defaults = {"CLAIM_RATE_LIMIT": "1200 per minute", "CLAIM_PUSH_ALLOW": Config().push_allow}
    assert Config.from_env({**environ, **defaults}) == Config()


def test_a_reminder_share_of_zero_turns_reminders_off():
    assert Config.from_env({"CLAIM_REMINDER_SHARE": "0"}).reminder_share is None


def test_expert_seconds_of_zero_give_the_expert_its_fixed_work_budget():
    assert Config.from_env({"CLAIM_EXPERT_SECONDS": "0"}).expert_seconds is None


def test_the_command_lines_options_come_on_top():
    config = Config.from_env({"CLAIM_PREFIX": "club"}, sweep_every=2.0)
    assert (config.prefix, config.sweep_every) == ("club", 2.0)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("CLAIM_PREFIX", "a:b"),
        ("CLAIM_PREFIX", "{x}"),
        ("CLAIM_REMINDER_SHARE", "half"),
        ("CLAIM_REMINDER_SHARE", "1.5"),
        ("CLAIM_WATCH_CAP", "many"),
        ("CLAIM_WATCH_CAP", "0"),
        ("CLAIM_BODY_TIMEOUT", "0"),
        ("CLAIM_HEADER_TIMEOUT", "soon"),
        ("CLAIM_SENDING_CAP", "0"),
        ("CLAIM_TRUSTED_PROXIES", "10.0.0.300"),
        ("CLAIM_TRUSTED_PROXIES", "10.0.0.1/8"),
        ("CLAIM_FSYNC", "sometimes"),
        ("CLAIM_EXPERT_SECONDS", "soon"),
        ("CLAIM_EXPERT_SECONDS", "-1"),
        ("CLAIM_EXPERT_SECONDS", "61"),
        ("CLAIM_REPLICAS", "two"),
        ("CLAIM_REPLICAS", "-1"),
    ],
)
def test_an_unusable_value_is_refused_naming_its_variable(variable, value):
    with pytest.raises(ConfigError, match=variable):
        Config.from_env({variable: value})


def test_options_of_the_worker_must_be_positive():
    with pytest.raises(ConfigError, match="--sweep-every"):
        Config(sweep_every=0)
