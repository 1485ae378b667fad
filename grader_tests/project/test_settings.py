"""Every setting is declared once (grader.settings): the Configurables, the sandbox's limits and
the settings reference all follow the declarations."""
from __future__ import annotations

import dataclasses
import importlib
import logging

import pytest
from traitlets import TraitError
from traitlets.config import Application, Config
from traitlets.config.loader import PyFileConfigLoader

from grader import settings
from grader.sandbox.limits import SandboxLimits, load_sandbox_limits
from grader.state_folders import STATE_ENTRIES

# The Configurable that reads each section of nbgrader_config.py.
CONFIGURABLES = {
    "SandboxedExecute": "grader.sandbox.execute:SandboxedExecute",
    "SandboxedKernelManager": "grader.sandbox.kernel_manager:SandboxedKernelManager",
    "PrepareProbes": "grader.grading.preprocessors.prepare_probes:PrepareProbes",
    "AttemptCredit": "grader.grading.attempt_credit:AttemptCredit",
    "FeedbackPage": "grader.grading.preprocessors.feedback_page:FeedbackPage",
    "FeedbackExporter": "grader.pages.exporter:FeedbackExporter",
    "GenerateFeedback": "grader.grading.nbgrader_apps:PagesOnlyFeedback",
    "GradingService": "grader.service_policy:GradingService",
    "CoursePolicy": "grader.policy.course_policy:CoursePolicy",
    "LmsPassback": "grader.lti.passback:LmsPassback",
}


def configurable(section: str):
    module, name = CONFIGURABLES[section].split(":")
    return getattr(importlib.import_module(module), name)


def declared(section: str):
    return [pytest.param(s, id=f"{s.section}.{s.name}") for s in settings.settings_of(section)]


EVERY_SETTING = [param for section in CONFIGURABLES for param in declared(section)]


def test_every_declared_section_has_its_configurable():
    assert {s.section for s in settings.SETTINGS} == set(CONFIGURABLES)


@pytest.mark.parametrize("section", CONFIGURABLES)
def test_every_setting_a_configurable_adds_is_declared(section):
    cls = configurable(section)
    inherited = {name for base in cls.__mro__[1:] if hasattr(base, "class_traits")
                 for name in base.class_traits()}
    added = set(cls.class_own_traits(config=True)) - inherited
    assert added == {name for s in settings.settings_of(section) for name in (s.name, s.formerly) if name}


@pytest.mark.parametrize("setting", EVERY_SETTING)
def test_configurable_trait_has_the_declared_default_and_help(setting):
    trait = configurable(setting.section).class_traits()[setting.name]
    default = trait.default()
    expected = list(setting.default) if isinstance(setting.default, tuple) else setting.default
    assert (default, trait.help, trait.allow_none) == (expected, setting.help, setting.allow_none)


@pytest.mark.parametrize("setting", EVERY_SETTING)
def test_configurable_trait_is_settable_from_the_config(setting):
    assert configurable(setting.section).class_traits()[setting.name].metadata.get("config") is True


def test_a_renamed_setting_set_under_its_former_name_is_used_with_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="grader.settings"):
        exporter = configurable("FeedbackExporter")(config=Config({"FeedbackExporter": {"max_output_bytes": 1234}}))
    assert exporter.max_output_chars == 1234
    assert "c.FeedbackExporter.max_output_bytes is now called c.FeedbackExporter.max_output_chars" in caplog.text


def test_a_renamed_setting_left_unset_under_its_former_name_keeps_its_default():
    exporter = configurable("FeedbackExporter")()
    assert exporter.max_output_chars == settings.setting("FeedbackExporter", "max_output_chars").default


def test_the_reference_names_a_renamed_setting_s_former_name():
    assert "Formerly `c.FeedbackExporter.max_output_bytes`, which is still read." in settings.reference_markdown()


def test_declared_minimum_is_enforced_by_the_trait():
    with pytest.raises(TraitError):
        configurable("GradingService")(config=Config({"GradingService": {"workers": 0}}))


def test_sandbox_limits_have_one_field_per_declared_limit_with_its_default():
    fields = {f.name: f.default for f in dataclasses.fields(SandboxLimits)}
    limits = settings.sandbox_limit_settings()
    assert list(fields) == [s.name for s in limits]
    assert all(fields[s.name] == (tuple(s.default) if isinstance(s.default, (list, tuple)) else
                                  () if s.default == {} else s.default) for s in limits)


def test_course_config_value_reaches_the_sandbox_limits(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text(
        "c = get_config()\nc.SandboxedExecute.tree_process_limit = 99\n"
        "c.SandboxedExecute.sandbox_env = {'LANG': 'C.UTF-8'}\n")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    limits = configurable("SandboxedExecute")(config=config).sandbox_limits()
    assert (limits.tree_process_limit, limits.sandbox_env) == (99, (("LANG", "C.UTF-8"),))


def test_unset_limit_takes_its_declared_default():
    assert load_sandbox_limits({}).memory_limit == 2 * settings.GiB


def test_unknown_sandbox_setting_is_reported_by_traitlets_with_a_suggestion(caplog, monkeypatch):
    # traitlets logs through the Application singleton's logger once one exists (an nbgrader app
    # another test left, whose logger need not reach the root logger); without one it uses its own,
    monkeypatch.setattr(Application, "_instance", None)
    # and the demo quietens the "traitlets" logger itself.
    with caplog.at_level(logging.WARNING, logger="traitlets"):
        configurable("SandboxedExecute")(config=Config({"SandboxedExecute": {"memroy_limit": 5}}))
    assert "Config option `memroy_limit` not recognized by `SandboxedExecute`" in caplog.text
    assert "memory_limit" in caplog.text.split("not recognized", 1)[1]


def test_mistyped_sandbox_setting_is_refused_by_traitlets():
    with pytest.raises(TraitError, match="memory_limit"):
        configurable("SandboxedExecute")(config=Config({"SandboxedExecute": {"memory_limit": "2 GiB"}}))


@pytest.mark.parametrize("setting", EVERY_SETTING)
def test_reference_lists_every_declared_setting(setting):
    assert f"`c.{setting.section}.{setting.name}`" in settings.reference_markdown()


@pytest.mark.parametrize("variable", settings.ENVIRONMENT, ids=lambda v: v.name)
def test_reference_lists_every_environment_variable(variable):
    assert f"`{variable.name}`" in settings.reference_markdown()


@pytest.mark.parametrize("entry", STATE_ENTRIES, ids=lambda e: e.name)
def test_reference_lists_every_state_folder_entry(entry):
    assert f"`{entry.relative}`" in settings.reference_markdown()


def test_reference_shows_a_size_default_with_its_unit():
    assert "| 2147483648 (2 GiB) |" in settings.reference_markdown()


def test_environment_variable_falls_back_to_its_default_when_unset(monkeypatch):
    monkeypatch.delenv(settings.EXCHANGE_ROOT.name, raising=False)
    assert settings.EXCHANGE_ROOT.read() == "/usr/local/share/nbgrader/exchange"


def test_the_exchange_root_default_is_nbgraders_own():
    from nbgrader.exchange.default.exchange import Exchange

    assert settings.EXCHANGE_ROOT.default == Exchange.class_traits()["root"].default_value


def test_environment_variable_is_read_when_set(monkeypatch):
    monkeypatch.setenv(settings.DB_URL.name, "postgresql+psycopg://grader@db/lab")
    assert settings.DB_URL.read() == "postgresql+psycopg://grader@db/lab"
