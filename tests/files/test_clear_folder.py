"""remove_generated: removes the named files and folders of an output folder, nothing else."""

from socialbench.files.clear_folder import remove_generated


def test_removes_named_folders_and_files_and_keeps_the_rest(tmp_path):
    (tmp_path / "images" / "sub").mkdir(parents=True)
    (tmp_path / "images" / "sub" / "a.png").write_bytes(b"x")
    (tmp_path / "README.md").write_text("card")
    (tmp_path / "notes.txt").write_text("mine")
    remove_generated(tmp_path, ("images", "README.md", "missing.json"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_a_linked_folder_loses_the_link_only(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.png").write_bytes(b"x")
    out = tmp_path / "out"
    out.mkdir()
    (out / "images").symlink_to(elsewhere)
    remove_generated(out, ("images",))
    assert not (out / "images").exists() and (elsewhere / "keep.png").read_bytes() == b"x"
