"""Short human strings for intervals, durations and due dates (pure functions, tested without Textual)."""

from __future__ import annotations

from datetime import datetime, timedelta

_UNITS = {
    # unit: (seconds, English suffix, Chinese suffix)
    "s": (1, "s", "秒"),
    "m": (60, "m", "分钟"),
    "h": (3600, "h", "小时"),
    "d": (86400, "d", "天"),
    "mo": (30 * 86400, "mo", "个月"),
    "y": (365 * 86400, "y", "年"),
}


def _amount(value: float) -> str:
    """1 -> "1", 2.5 -> "2.5", 12.3 -> "12": one decimal only where it matters."""
    if value >= 10 or abs(value - round(value)) < 0.05:
        return str(int(round(value)))
    return f"{value:.1f}"


def format_interval(delta: timedelta, lang: str = "en") -> str:
    """Anki-style interval on a rating button: "<1m", "10m", "3d", "2.1mo", "1.5y"."""
    seconds = max(delta.total_seconds(), 0.0)
    if seconds < 60:
        return "<1m" if lang != "zh" else "<1分钟"
    if seconds < 3600:
        unit = "m"
    elif seconds < 86400:
        unit = "h"
    elif seconds < 30 * 86400:
        unit = "d"
    elif seconds < 365 * 86400:
        unit = "mo"
    else:
        unit = "y"
    size, en, zh = _UNITS[unit]
    return _amount(seconds / size) + (zh if lang == "zh" else en)


def format_duration(seconds: float, lang: str = "en") -> str:
    """Time spent in a session: "45s", "3m 20s", "1h 05m"."""
    total = int(round(max(seconds, 0.0)))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if lang == "zh":
        if hours:
            return f"{hours}小时{minutes:02d}分"
        if minutes:
            return f"{minutes}分{secs:02d}秒"
        return f"{secs}秒"
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"


def format_due(when: datetime, now: datetime, lang: str = "en") -> str:
    """When the next card is due, relative to now: "in 10m" / "10分钟后" (past -> empty string)."""
    delta = when - now
    if delta <= timedelta(0):
        return ""
    text = format_interval(delta, lang)
    return f"{text}后" if lang == "zh" else f"in {text}"


def format_percent(part: int, whole: int) -> str:
    """"75%"; "–" when there is nothing to divide."""
    if whole <= 0:
        return "–"
    return f"{round(100 * part / whole)}%"
