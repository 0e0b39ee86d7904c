"""`quizapp optimize`: fit FSRS parameters to your review history with fsrs-rs (Anki's "Optimize").

Shows log loss and RMSE(bins) of the default, current and fitted parameters on the same held-out
reviews (a time-series split), runs the health check, and saves the fitted parameters only when they
predict your history better, saying so. quizapp.store.optimize does the work; this module prints.
"""

from __future__ import annotations

import argparse
import json

HELP = "fit the FSRS parameters to your review history (fsrs-rs) and keep them if they predict it better"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--topic", metavar="TOPIC", help="fit on this topic's reviews only")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print one JSON object")


def run(args: argparse.Namespace, options) -> int:
    return run_fit(args, options, save=True)


def run_fit(args: argparse.Namespace, options, *, save: bool) -> int:
    """optimize (save=True) and evaluate (save=False) share everything but the saving."""
    from quizapp.cli import CliError
    from quizapp.cli.srs_support import open_store
    from quizapp.store.database import NoHistory
    from quizapp.store.optimize import MIN_ITEMS, NotEnoughHistory, evaluate, health_check, optimize, review_history

    try:
        with open_store(options, read_only=not save) as store:
            if args.topic is not None:
                _check_topic(store, args.topic, options.lang)
            history = review_history(store, args.topic)
            warnings = health_check(store, args.topic)
            current = tuple(store.config.parameters)
            try:
                if save:
                    result = optimize(store, args.topic, history=history)
                    evaluation, fitted, saved = result.evaluation, result.parameters, result.saved
                else:
                    evaluation, fitted, saved = evaluate(history, current), None, False
            except NotEnoughHistory as exc:
                return _too_little(args, options, history, exc.have, exc.need, warnings)
    except NoHistory:
        return _too_little(args, options, None, 0, MIN_ITEMS, [])
    except CliError:
        raise
    return _report(args, options, history, evaluation, current, fitted, saved, warnings, save)


def _check_topic(store, topic: str, lang: str) -> None:
    from quizapp.cli import CliError
    from quizapp.words import say

    from quizapp.store.optimize import reviewed_topics

    topics = reviewed_topics(store)
    if topic not in topics:
        raise CliError(say("optimize.unknown_topic", lang, topic=topic, topics=", ".join(topics) or say("cli.none", lang)))


def _warnings_json(warnings, lang: str) -> list[dict]:
    from quizapp.words import say

    return [{"code": w.code, "message": say(w.code, lang, **w.args), **w.args} for w in warnings]


def _too_little(args, options, history, have: int, need: int, warnings) -> int:
    from quizapp.words import say

    message = say("optimize.too_little", options.lang, have=have, need=need, missing=need - have)
    if args.as_json:
        print(json.dumps({"enough_history": False, "cross_day_reviews": have, "needed": need,
                          "missing": need - have, "saved": False, "message": message,
                          "reviews": history.reviews if history else 0, "cards": history.cards if history else 0,
                          "health": _warnings_json(warnings, options.lang)}, ensure_ascii=False, indent=2))
    else:
        print(message)
    return 0


def _report(args, options, history, evaluation, current, fitted, saved: bool, warnings, save: bool) -> int:
    from fsrs_rs_python import DEFAULT_PARAMETERS

    from quizapp.words import say

    lang = options.lang
    is_default = all(abs(a - b) < 1e-6 for a, b in zip(current, DEFAULT_PARAMETERS))
    better = evaluation.fitted.log_loss < evaluation.current.log_loss
    if args.as_json:
        out = {
            "enough_history": True, "topic": args.topic, "reviews": history.reviews, "cards": history.cards,
            "cross_day_reviews": evaluation.items, "predicted": evaluation.tested, "splits": evaluation.splits,
            "defaults": {"log_loss": evaluation.defaults.log_loss, "rmse_bins": evaluation.defaults.rmse_bins},
            "current": {"log_loss": evaluation.current.log_loss, "rmse_bins": evaluation.current.rmse_bins,
                        "parameters": list(current), "is_default": is_default},
            "fitted": {"log_loss": evaluation.fitted.log_loss, "rmse_bins": evaluation.fitted.rmse_bins},
            "fitted_is_better": better, "saved": saved,
            "health": _warnings_json(warnings, lang),
        }
        if fitted is not None:
            out["fitted"]["parameters"] = list(fitted)
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    scope = say("optimize.scope_topic", lang, topic=args.topic) if args.topic else ""
    lines = [say("optimize.history", lang, reviews=history.reviews, cards=history.cards, items=evaluation.items,
                 scope=scope),
             say("optimize.split", lang, splits=evaluation.splits)]
    rows = [("optimize.defaults", evaluation.defaults)]
    if not is_default:
        rows.append(("optimize.current", evaluation.current))
    rows.append(("optimize.fitted", evaluation.fitted))
    for key, m in rows:
        lines.append("  " + say("optimize.figures", lang, what=say(key, lang), log_loss=m.log_loss, rmse=m.rmse_bins))
    lines += [say(w.code, lang, **w.args) for w in warnings] or [say("health.ok", lang)]
    if save:
        if saved:
            lines.append(say("optimize.saved", lang, old=evaluation.current.log_loss, new=evaluation.fitted.log_loss))
            if args.topic:
                lines.append(say("optimize.saved_topic", lang, topic=args.topic))
            lines.append(say("optimize.parameters", lang, values=" ".join(f"{w:.4f}" for w in fitted)))
        else:
            lines.append(say("optimize.not_better", lang, new=evaluation.fitted.log_loss, old=evaluation.current.log_loss))
    print("\n".join(lines))
    return 0
