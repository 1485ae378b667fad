"""The page on which a student chooses their language on the course hub (``/hub/language``).

A signed-in student sees the course's languages, each named in itself, their current one chosen.
The hub's handler (``LanguageChoice`` in :mod:`grader.hub.lti_login`) records the choice in the
course's file of students' languages (:mod:`grader.language.language_records`: the file ``grader
roster`` writes, which the hub's spawn hook and the grading side read), restarts the student's
server, whose spawn hook gives it ``STUDENT_LANGUAGE``, and sends the student back to their course
page. From then on the course page, the notebooks fetched and the feedback pages are in that
language; notebooks already fetched stay as they are. The page says so in every language of the
course, and that the restart closes the student's running notebooks.

Standard library only: ``grader hub up`` copies this module beside the hub's config.
"""
from __future__ import annotations

import html

#: The page's path under the hub's prefix (``/hub/``).
PAGE_PATH = "language"
#: What the page may do: show itself with its own style and post its form to the hub; no script,
#: nothing loaded from anywhere, never framed.
PAGE_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; "
               "frame-ancestors 'none'")
#: The ``lang`` attribute of each language's text on the page (a language code as the course names it otherwise).
HTML_LANG = {"zh": "zh-Hans"}
#: What the page says, per language; the page says all of it in every course language.
WORDS = {
    "en": {"title": "Language",
           "explanation": "Your course page, the notebooks you fetch from now on and your feedback are in the "
                          "language you choose. Notebooks you have already fetched stay as they are. Saving "
                          "restarts your server and closes your running notebooks: save them first.",
           "save": "Save and restart", "back": "Back to your course"},
    "zh": {"title": "语言",
           "explanation": "你选择的语言用于课程页面、今后获取的笔记本和你的反馈。已经获取的笔记本保持不变。"
                          "保存会重新启动你的服务器并关闭正在运行的笔记本：请先保存它们。",
           "save": "保存并重启", "back": "返回课程"},
}


def _lang(code: str) -> str:
    return HTML_LANG.get(code, code)


def language_page(languages: dict[str, str], current: str, xsrf_form_html: str, action: str, course_url: str) -> str:
    """The page's HTML: a form posting to ``action`` with one choice per course language
    (``languages``: code -> the language's name in itself), ``current`` chosen, and a link back to
    ``course_url``; every text in every course language the page speaks, each marked with its ``lang``."""
    e = html.escape
    said = [code for code in WORDS if code in languages] or ["en"]

    def in_each(key: str) -> str:
        return " · ".join(f'<span lang="{_lang(code)}">{e(WORDS[code][key])}</span>' for code in said)

    choices = "\n".join(
        f'<label><input type="radio" name="language" value="{e(code)}"{" checked" if code == current else ""}> '
        f'<span lang="{_lang(code)}">{e(name)}</span></label>' for code, name in languages.items())
    explanations = "\n".join(f'<p lang="{_lang(code)}">{e(WORDS[code]["explanation"])}</p>' for code in said)
    return f"""<!DOCTYPE html>
<html lang="{_lang(said[0])}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{" · ".join(e(WORDS[code]["title"]) for code in said)}</title>
<style>
body {{ font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 40rem; padding: 0 1rem; color: #1a1a1a; }}
fieldset {{ border: 1px solid #767676; padding: 0.5rem 1rem; margin: 1rem 0; }}
label {{ display: block; padding: 0.25rem 0; }}
button {{ font: inherit; padding: 0.4rem 1rem; }}
a {{ color: #0b57a4; }}
</style></head>
<body><main>
<h1>{in_each("title")}</h1>
<form method="post" action="{e(action)}">{xsrf_form_html}
<fieldset><legend>{in_each("title")}</legend>
{choices}
</fieldset>
{explanations}
<button type="submit" class="save">{in_each("save")}</button>
</form>
<p><a class="back" href="{e(course_url)}">{in_each("back")}</a></p>
</main></body></html>
"""
