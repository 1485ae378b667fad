"""What the grading service's status pages say, as messages of the language catalogue.

Each is the English text (the message id of ``grader/language/locales/<language>/LC_MESSAGES/grader.po``);
``{name}`` parts are filled after translating (``grader.language.catalogue.translate``). The journal
keeps the English text; a student's page is in the student's language
(``grader.language.student_language.reading_language``).
"""
from __future__ import annotations

# ---- headlines: what happened to the hand-in -------------------------------------------------------
HEADLINES = ("refused", "ungradable", "superseded", "not counted", "waiting to be graded", "received and graded",
             "not graded")

# ---- details: why -----------------------------------------------------------------------------------
SERVICE_FAULT = "the service could not handle this hand-in ({error}); the instructor has been told."
GRADING_STOPPED = "grading stopped {times} times without a result ({error}); the instructor has been told."
SUPERSEDED = ("you handed in {count} times before the earlier ones could be graded; this one was not graded "
              "because newer ones are waiting (the latest from {latest}).")
NOT_COUNTED = ("handed in after the due date ({due}); your submission from {on_time} counts (the last one "
               "before the due date).")
HOURLY_LIMIT = ("this course grades at most {limit} submissions of an assignment per student per hour; this one "
                "will be graded at {at} and its feedback replaces this page then.")
GRADING_TIME_USED = ("grading your hand-ins took {used} minutes in the last hour, the most this course gives one "
                     "student in an hour ({budget} minutes, over every assignment); this one is graded as soon as "
                     "the oldest of that time is more than an hour old, and its feedback replaces this page then.")
HELD_UNTIL_DUE = "feedback for this assignment is released after its due date, {due}."

# ---- what to do -------------------------------------------------------------------------------------
REFUSED_TODO = ("hand in again with the Submit button of the Assignment List (nbgrader submit), from your "
                "own account, holding only the files of your assignment folder; never make or change a "
                "hand-in folder by hand.")
OWN_WORK_TODO = ("hand in your own work from your own account with Submit (nbgrader submit), holding only the "
                 "files of your assignment folder.")
TODOS = (REFUSED_TODO, OWN_WORK_TODO,
         "ask the instructor: later hand-ins are refused too until they make room.",
         "ask the instructor; handing in again may not help.",
         "ask the instructor; handing in again will not help.",
         "wait for the feedback of your latest submission before handing in again.",
         "nothing: your on-time submission is the one that is graded.",
         "nothing; fetch feedback again after that time. A newer submission is graded after this one.",
         "nothing; fetch feedback again later. Notebooks that wait or loop for long use up this time.",
         "nothing; fetch feedback again after the due date.")

# ---- a refused folder whose name says no assignment or time ----------------------------------------
YOUR_HANDIN = "your hand-in"
UNNAMED_TIME = "at a time its name does not say"

#: Every message of the service's status pages (the catalogue test checks each is translated).
MESSAGES = (*HEADLINES, SERVICE_FAULT, GRADING_STOPPED, SUPERSEDED, NOT_COUNTED, HOURLY_LIMIT,
            GRADING_TIME_USED, HELD_UNTIL_DUE, *TODOS, YOUR_HANDIN, UNNAMED_TIME)
