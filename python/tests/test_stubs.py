"""The typed stubs (__init__.pyi) name everything the module offers: each exported name, and
each public method and property of the classes, so that a type checker sees the whole API."""

import ast
import pathlib

import radixsweep


def stub_tree():
    return ast.parse((pathlib.Path(radixsweep.__file__).parent / "__init__.pyi").read_text())


def test_every_export_has_a_stub():
    names = set()
    for node in stub_tree().body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets)
    assert set(radixsweep.__all__) <= names, set(radixsweep.__all__) - names


def test_every_public_method_has_a_stub():
    classes = {node.name: node for node in stub_tree().body if isinstance(node, ast.ClassDef)}
    for cls in (radixsweep.BroadPhase, radixsweep.World, radixsweep.DeviceArray):
        stubbed = {item.name for item in classes[cls.__name__].body
                   if isinstance(item, ast.FunctionDef)}
        public = {name for name in dir(cls)
                  if not name.startswith("_") or name in ("__dlpack__", "__dlpack_device__",
                                                          "__cuda_array_interface__", "__len__")}
        assert public <= stubbed, f"{cls.__name__}: {sorted(public - stubbed)}"
