"""Train and eval files from MetaQA dev: every question in exactly one, none in both."""

from __future__ import annotations

from koplc.gnn.splits import write_splits


def test_unverified_and_every_fifth_verified_train_the_rest_evaluate(tmp_path):
    dev_all, verified, out = tmp_path / "dev_all", tmp_path / "full", tmp_path / "out"
    dev_all.mkdir()
    verified.mkdir()
    for hop in (1, 2, 3):
        lines = [f"q{hop}-{i} [T{i}]\tA{i}\tmovie_to_director" for i in range(12)]
        (dev_all / f"qa_{hop}hop_dev_all.tsv").write_text("\n".join(lines) + "\n")
        checked = [i for i in range(12) if i % 3]  # 0, 3, 6, 9 unverified
        (verified / f"qa_{hop}hop_dev.tsv").write_text(
            "".join(f"{i}\t{lines[i]}\n" for i in checked))
    counts = write_splits(dev_all, verified, out, every=5, mix_3hop=2)
    train = (out / "train_2hop.tsv").read_text().splitlines()
    held = (out / "eval_2hop.tsv").read_text().splitlines()
    # train: unverified 0 3 6 9 and verified 5 10; eval: verified 1 2 4 7 8 11
    assert [line.split(" ")[0] for line in train] == [f"q2-{i}" for i in (0, 3, 5, 6, 9, 10)]
    assert [int(line.split("\t")[0]) for line in held] == [1, 2, 4, 7, 8, 11]
    assert not {line.split("\t", 1)[1] for line in held} & set(train)
    assert counts["train_2hop"] + counts["eval_2hop"] == 12
    # the mix: every 1- and 2-hop training question, every 2nd 3-hop one (3, 6, 10); the
    # unverified 3-hop ones left out of it (0, 9) are held out
    mix = (out / "train_mix.tsv").read_text().splitlines()
    assert [line.split(" ")[0] for line in mix if line.startswith("q3")] == ["q3-3", "q3-6", "q3-10"]
    assert len(mix) == 6 + 6 + 3
    inexact = (out / "eval_3hop_inexact.tsv").read_text().splitlines()
    assert [line.split(" ")[0] for line in inexact] == ["q3-0", "q3-9"]
