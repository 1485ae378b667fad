"""Feedback pages: the summary and tidy-up of ``nbgrader generate_feedback`` pages, and the page of an ungradable submission."""
from grader.feedback.page import FeedbackPage
from grader.feedback.status_page import write_ungradable_page

__all__ = ["FeedbackPage", "write_ungradable_page"]
