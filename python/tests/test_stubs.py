"""The type stubs (py.typed, *.pyi) cover the public surface: every name a
module exports and every public method or property of the public classes."""
import ast
import inspect
import os

import pytest

import mns

PKG = os.path.dirname(mns.__file__)


def stub(module):
    path = os.path.join(PKG, module + ".pyi")
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    names, classes = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    members.add(item.target.id)
            classes[node.name] = members
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names, classes


def test_py_typed_is_shipped():
    assert os.path.isfile(os.path.join(PKG, "py.typed"))


@pytest.mark.parametrize("module,obj", [
    ("__init__", mns), ("pmns", mns.pmns), ("rsa", mns.rsa), ("_field", mns._field), ("_errors", mns._errors)])
def test_module_exports_are_stubbed(module, obj):
    names, _ = stub(module)
    exported = getattr(obj, "__all__", None) or [n for n in vars(obj) if not n.startswith("_")
                                                 and getattr(vars(obj)[n], "__module__", None) == obj.__name__]
    missing = [n for n in exported if n not in names]
    assert not missing, f"{module}.pyi lacks {missing}"


# (module, class, whether users call its constructor: Element and Params are
# made by the library only, so their __init__ stays out of the stubs)
@pytest.mark.parametrize("module,cls,made_by_users", [
    ("_field", mns.Field, True), ("_field", mns.Element, False), ("rsa", mns.RSA, True),
    ("pmns", mns.pmns.Params, False), ("_errors", mns.MNSError, True)])
def test_class_members_are_stubbed(module, cls, made_by_users):
    _, classes = stub(module)
    assert cls.__name__ in classes, f"{module}.pyi has no class {cls.__name__}"
    own = {n for n in vars(cls) if not n.startswith("_") or n in ("__call__", "__int__", "__pow__")}
    if made_by_users:
        own.add("__init__")
    own |= {n for n in getattr(cls, "__slots__", ()) if not n.startswith("_")}
    if issubclass(cls, BaseException):
        own -= {"args", "with_traceback", "add_note"}
    missing = sorted(own - classes[cls.__name__])
    assert not missing, f"{module}.pyi: {cls.__name__} lacks {missing}"
