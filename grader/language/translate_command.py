"""``grader translate``: the catalogue of the course's words (:mod:`grader.language.notebook_catalogue`).

    grader translate extract      regenerate locales/notebooks.pot from source/ and merge it into each
                                  language's locales/<language>/LC_MESSAGES/notebooks.po
    grader translate check        name every paragraph, visible-test message or checks file's text a
                                  language would show in English; exit 1 if any
    grader translate compile DIR  the catalogues compiled for the students' fetch:
                                  DIR/<language>/LC_MESSAGES/notebooks.mo
"""
from __future__ import annotations

from pathlib import Path

from grader.course import Course

# The catalogue code (and nbgrader's exchange, which it extends) is imported by the commands that
# use it, not when the CLI's parser is built: every other command starts without it.


def cmd_extract(course: Course, args) -> int:
    from grader.language.notebook_catalogue import extract

    for path in extract(course.root):
        print(f"wrote {path.relative_to(course.root)}")
    return cmd_check(course, args)


def cmd_check(course: Course, args) -> int:
    from grader.language.notebook_catalogue import translated_languages, untranslated

    missing = [entry for language in translated_languages() for entry in untranslated(course.root, language)]
    for entry in missing:
        state = "fuzzy (the English changed; revise the translation)" if entry.fuzzy else "untranslated"
        first_line = entry.paragraph.splitlines()[0]
        print(f"{entry.language}: {entry.where}: {state}: {first_line[:80]}")
    if not missing:
        print("every paragraph and visible-test message of the notebooks, and every text of the checks files, "
              f"is translated into {', '.join(translated_languages())}")
    return 1 if missing else 0


def cmd_compile(course: Course, args) -> int:
    from grader.language.notebook_catalogue import compile_catalogues

    for path in compile_catalogues(course.root, Path(args.folder)):
        print(f"wrote {path}")
    return 0


def add_translate_parser(sub, course_of) -> None:
    """``grader translate ...``; ``course_of(args)`` is the CLI's course folder check."""
    p = sub.add_parser("translate", help="the notebooks' prose in other languages: extract the catalogue, "
                                         "check its translations")
    commands = p.add_subparsers(dest="translate_command", required=True)
    for name, func, text in (
            ("extract", cmd_extract, "regenerate locales/notebooks.pot from source/ and merge it into every "
                                     "language's notebooks.po (then check)"),
            ("check", cmd_check, "name every paragraph still untranslated or fuzzy; exit 1 if any"),
            ("compile", cmd_compile, "compile the catalogues where the students' fetch reads them "
                                     "(c.TranslatingFetchAssignment.locale_dir)")):
        q = commands.add_parser(name, help=text)
        q.add_argument("--course", default=".", help="course folder (default: the current folder)")
        if name == "compile":
            q.add_argument("folder", metavar="DIR", help="where to write <language>/LC_MESSAGES/notebooks.mo")
        q.set_defaults(func=lambda args, func=func: func(course_of(args), args))
