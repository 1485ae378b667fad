"""What a refused author reads: every sentence of a refusal, each a message of the engine's
catalogue (``REFUSAL_MESSAGES``: a page in another language says them in that language)."""
from __future__ import annotations

# Messages of the engine's catalogue: a status page in another language says them by reading them
# back (``grader.language.text_patterns``); the values (file names, sizes, parsers' words) stay.
NO_SUCH_ASSIGNMENT = "the course has no assignment {assignment} (its assignments: {assignments})"
NAMES_NOT_UTF8 = ("the submission holds files whose names are not UTF-8 text ({names}); rename them (letters, "
                  "digits, - and _) or remove them from your assignment folder, and hand in again.")
TOO_LARGE = ("{notebook} is {size} MB, more than the {limit} MB this course grades; clear the outputs "
             "(Kernel > Restart & Clear Output), save and hand in again.")
NO_NOTEBOOK = "no notebook was submitted: {notebook} is missing from the submission folder."
MISSING = ("{notebook} is missing from your submission. Hand in the folder {assignment} fetched with Fetch "
           "(nbgrader fetch_assignment), with {notebook} in it.")
MISSING_BESIDE = ("{notebook} is missing from your submission; the submission holds {notebooks}. Hand in the "
                  "folder {assignment} fetched with Fetch (nbgrader fetch_assignment), with {notebook} in it.")
UNREADABLE = "{notebook} is not a readable notebook: {problem}; resubmit the file saved by Jupyter."
INVALID = "{notebook} is not a valid notebook ({problem}); resubmit the file saved by Jupyter."
TOO_MANY_CELLS = ("{notebook} has {cells} cells, more than the {limit} this course grades; start again from the "
                  "released notebook.")
ANOTHER_ASSIGNMENT = ("{notebook} holds the cells of assignment {other}, not {assignment}; put your {assignment} "
                      "work in {notebook} and hand in again.")
NOT_UTF8_TEXT = "the file is not UTF-8 text (byte {byte} is not), so Jupyter did not save it"
CANNOT_BE_READ = "the file cannot be read ({error})"
EMPTY_FILE = "the file is empty"
CUT_OFF = ("the file stops in the middle of the notebook (after {lines} lines), as a file cut off while it was "
           "saved or copied does")
NOT_JSON = "the file is not valid JSON from line {line}, column {column} on ({error})"
NO_NOTEBOOK_IN_JSON = "the file is JSON but holds no notebook"
MOVED_OUT = "{reason} Moved out of the submission folder: {entries}."
# ... and by the grading service, while it reads inbound/ (grader.service) or after grading
NAME_NOT_UTF8 = "its name is not UTF-8 text"
NOT_A_HANDIN_NAME = "its name is not <student>+<assignment>+<timestamp>+<random>, as nbgrader submit names a hand-in"
NOT_A_DATE = "the timestamp part of its name ({timestamp}) is not a date"
NOT_A_FOLDER = "it is {entry}, not a hand-in folder"
NAMES_NO_STUDENT_ID = "the hand-in's name gives {student} as its student, which is not a student id"
ROOTS_FOLDER = "the folder belongs to root, not to a student's account"
NO_ACCOUNT = "the folder belongs to {owner}, which has no account"
NOT_A_STUDENTS_ACCOUNT = "the folder belongs to the account {owner}, which is not a student's"
NAMES_ANOTHER_STUDENT = ("this hand-in names student {student} but was handed in by the account {owner}; hand in "
                         "your own work as yourself (nbgrader submit without --student).")
OWNER_CHANGED = "the hand-in folder changed owner while it was read"
LINK_NOT_FOLDER = "{path} is not a folder (a link or special file)"
SPECIAL_FILE = ("{path} is a {special}; hand in only the files of your assignment folder (nbgrader submit copies "
                "them)")
FOREIGN_FILE = "{path} belongs to the account {account}, not to you; hand in only your own files"
TOO_MANY_FILES = "the hand-in holds more than {limit} files and folders; hand in only your assignment folder"
NESTED_TOO_DEEP = "the hand-in has folders nested more than {limit} deep; hand in only your assignment folder"
HANDIN_TOO_LARGE = ("the hand-in holds more than {limit} MB; clear the outputs of your notebooks and remove large "
                    "files")
TOO_MANY_NOTEBOOKS = "the hand-in holds more than {limit} notebooks; hand in only your assignment folder"
CHANGED_WHILE_READ = "{path} changed while it was read"
BECAME_A_LINK = "{path} became a link while it was read"
GREW_WHILE_READ = "{path} grew while it was read, past the hand-in's size budget"
NO_SECRET = "the hand-in has no {file} written by nbgrader submit; hand in with Submit (nbgrader submit)"
BAD_SECRET = "the hand-in's {file} is not one nbgrader submit wrote; hand in with Submit (nbgrader submit)"
NEVER_FINISHED = ("it still had no {file} {seconds} s after it appeared, so nbgrader submit did not write it; hand "
                  "in with Submit (nbgrader submit)")
FLOODED_TEXT = "its owner made more new entries in inbound/ at once than the course allows"
ENTRY_UNREADABLE = "it could not be read ({error})"
SECRET_REUSED = "its submission secret is the one of another hand-in"
ARCHIVE_FULL = ("your earlier hand-ins already take {used} MB of the course's archive, its limit per student "
                "({limit} MB); this one was not kept")
FEEDBACK_FAILED = "the feedback page could not be generated; the instructor has been told"
#: Every message above (each translated in every language's catalogue: tested).
REFUSAL_MESSAGES = (NO_SUCH_ASSIGNMENT, NAMES_NOT_UTF8, TOO_LARGE, NO_NOTEBOOK, MISSING, MISSING_BESIDE, UNREADABLE,
                    INVALID, TOO_MANY_CELLS, ANOTHER_ASSIGNMENT, NOT_UTF8_TEXT, CANNOT_BE_READ, EMPTY_FILE, CUT_OFF,
                    NOT_JSON, NO_NOTEBOOK_IN_JSON, MOVED_OUT, NAME_NOT_UTF8, NOT_A_HANDIN_NAME, NOT_A_DATE, NOT_A_FOLDER,
                    NAMES_NO_STUDENT_ID, ROOTS_FOLDER, NO_ACCOUNT, NOT_A_STUDENTS_ACCOUNT, NAMES_ANOTHER_STUDENT,
                    OWNER_CHANGED, LINK_NOT_FOLDER, SPECIAL_FILE, FOREIGN_FILE, TOO_MANY_FILES, NESTED_TOO_DEEP,
                    HANDIN_TOO_LARGE, TOO_MANY_NOTEBOOKS, CHANGED_WHILE_READ, BECAME_A_LINK, GREW_WHILE_READ, NO_SECRET,
                    BAD_SECRET, NEVER_FINISHED, FLOODED_TEXT, ENTRY_UNREADABLE, SECRET_REUSED, ARCHIVE_FULL,
                    FEEDBACK_FAILED)

