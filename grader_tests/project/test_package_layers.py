"""The package's layers hold: every module has a place, nothing imports upwards, no import cycles."""
from __future__ import annotations

from grader_tests.package_layers import cycles, imports, modules, part_of, upward_imports


def test_every_module_belongs_to_a_layer():
    assert [m for m in modules() if _unplaced(m)] == []


def test_no_module_imports_from_a_higher_layer():
    assert [f"{i.importer} -> {i.imported}" for i in upward_imports(imports())] == []


def test_no_modules_import_each_other_in_a_loop():
    assert cycles(imports()) == []


def test_the_layer_check_sees_an_upward_import(tmp_path):
    (tmp_path / "grader" / "grading").mkdir(parents=True)
    (tmp_path / "grader" / "service").mkdir()
    (tmp_path / "solutions").mkdir()
    for name in ("grader/__init__.py", "grader/grading/__init__.py", "grader/service/__init__.py",
                 "solutions/__init__.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "grader" / "grading" / "step.py").write_text("def f():\n    from grader.service.loop import run\n")
    (tmp_path / "grader" / "service" / "loop.py").write_text("from grader.grading.step import f\nrun = f\n")
    found = imports(tmp_path)
    assert [(i.importer, i.imported) for i in upward_imports(found)] == [("grader.grading.step", "grader.service.loop")]
    assert cycles(found) == [["grader.grading.step", "grader.service.loop"]]


def _unplaced(module: str) -> bool:
    if module in ("grader", "solutions"):
        return False
    try:
        part_of(module)
    except KeyError:
        return True
    return False
