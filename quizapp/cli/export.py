"""`quizapp export anki FILE.apkg [SEARCH]` and `quizapp export revlog FILE.csv`: a way out.

anki: the question bank (every card, or those a search finds) as an Anki package, one note per card
(quizapp.practice.export). revlog: the review history in the CSV that fsrs-optimizer and
srs-benchmark read (quizapp.store.revlog_io). Neither replaces an existing file; the database is
opened read-only.
"""

from __future__ import annotations

import argparse

HELP = "write the cards as an Anki package (anki FILE.apkg [SEARCH]) or the review history as CSV (revlog FILE.csv)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from quizapp.cli.args import path

    parser.add_argument("what", choices=("anki", "revlog"), help="anki: an .apkg of the cards; revlog: the history CSV")
    parser.add_argument("file", type=path, metavar="FILE", help="the file to write (.apkg or .csv; must not exist)")
    parser.add_argument("search", nargs="*", metavar="SEARCH", help="anki only: export the cards this search finds")


def run(args: argparse.Namespace, options) -> int:
    from quizapp.cli import CliError
    from quizapp.words import say

    lang = options.lang
    suffix = ".apkg" if args.what == "anki" else ".csv"
    if args.file.suffix.lower() != suffix:
        raise CliError(say("export.bad_suffix", lang, path=args.file, suffix=suffix))
    if args.file.exists():
        raise CliError(say("export.exists", lang, path=args.file))
    if args.what == "revlog":
        if args.search:
            raise CliError(say("export.revlog_no_search", lang))
        return _revlog(args, options)
    return _anki(args, options)


def _revlog(args, options) -> int:
    from quizapp.cli import CliError
    from quizapp.cli.srs_support import open_store
    from quizapp.store.database import NoHistory
    from quizapp.store.revlog_io import COLUMNS, _write_new, export_revlog
    from quizapp.words import say

    try:
        with open_store(options, read_only=True) as store:
            report = export_revlog(store, args.file)
    except NoHistory:
        _write_new(args.file, ",".join(COLUMNS) + "\n")
        print(say("export.revlog_done", options.lang, n=0, path=args.file))
        return 0
    except FileExistsError:
        raise CliError(say("export.exists", options.lang, path=args.file)) from None
    except OSError as exc:
        raise CliError(say("export.cannot_write", options.lang, path=args.file, reason=exc.strerror or exc)) from None
    print(say("export.revlog_done", options.lang, n=report.reviews, path=args.file))
    return 0


def _anki(args, options) -> int:
    from quizapp.cli import CliError
    from quizapp.cli.srs_support import load_bank, open_view, search_error_line
    from quizapp.practice.export import deck_name, notes_for, study_progress, write_apkg
    from quizapp.store.search import SearchError, find_ids, index_from_bank
    from quizapp.words import say

    bank = load_bank(options)
    ids = None
    try:
        with open_view(options, bank) as store:  # the bank's cards as the app sees them, nothing written
            if args.search:
                ids = find_ids(store, " ".join(args.search), index_from_bank(bank))
            notes = notes_for(bank, ids, options.lang)
            progress = study_progress(store, [n.card_id for n in notes])  # studied cards arrive as studied
    except SearchError as exc:
        raise CliError(search_error_line(exc, options.lang)) from None
    if not notes:
        raise CliError(say("export.no_cards", options.lang), code=1)
    try:
        write_apkg(notes, args.file, options.lang, progress)
    except FileExistsError:
        raise CliError(say("export.exists", options.lang, path=args.file)) from None
    except OSError as exc:
        raise CliError(say("export.cannot_write", options.lang, path=args.file, reason=exc.strerror or exc)) from None
    print(say("export.anki_done", options.lang, n=len(notes), path=args.file, deck=deck_name(options.lang)))
    return 0
