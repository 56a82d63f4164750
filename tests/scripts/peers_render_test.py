"""scripts/peers-render on a fixture of synthetic results (no GPU): the
table's shape, its cells, the best-gpuhash / best-peer ratios, the notes,
the plot, the doc's section, and the refusals; scripts/peers-compare's plan
of what a resumed run still measures (--dry-run).

The fixture (data/peers_fixture.jsonl) has the lines peers-compare writes:
a session record, gpuhash-bench's lf_sweep lines and the peers' drivers'
lines, each with its unit; three designs (cuckoo_node_local failing above
load 0.5), cuCollections, BGHT (bcht not verified at 0.95) and SlabHash at
loads 0.5, 0.8, 0.9, 0.95. Its numbers are made up.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
RENDER = os.path.join(ROOT, "scripts", "peers-render")
COMPARE = os.path.join(ROOT, "scripts", "peers-compare")
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "peers_fixture.jsonl")
DOC = os.path.join(ROOT, "docs", "results", "peers.md")
BEGIN = "<!-- peers-compare: begin"
END = "<!-- peers-compare: end -->"


def render(*arguments):
    return subprocess.run([sys.executable, RENDER, *arguments], capture_output=True, text=True)


def table_rows(markdown):
    """The table's rows as lists of cells (header first, the rule left out)."""
    rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


class RenderedTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp()
        cls.doc = os.path.join(cls.scratch, "peers.md")
        shutil.copy(DOC, cls.doc)
        cls.plots = os.path.join(cls.scratch, "plots")
        result = render(FIXTURE, "--doc", cls.doc, "--plot-dir", cls.plots)
        if result.returncode != 0:
            raise AssertionError(f"peers-render failed:\n{result.stderr}")
        cls.output = result.stdout
        cls.rows = table_rows(result.stdout)
        cls.by_name = {row[0]: row[1:] for row in cls.rows[1:]}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch)

    def column(self, load, op):
        return self.rows[0].index(f"{load} {op}") - 1

    def test_columns_are_every_load_by_every_operation(self):
        header = self.rows[0]
        self.assertEqual(header[0], "table")
        self.assertEqual(header[1:], [f"{load} {op}" for load in ("0.5", "0.8", "0.9", "0.95")
                                      for op in ("insert", "find-hit", "find-miss")])
        for row in self.rows:
            self.assertEqual(len(row), 13, row)

    def test_rows_are_the_designs_then_the_peers_then_the_summary(self):
        self.assertEqual([row[0] for row in self.rows[1:]], [
            "`linear_probing`", "`bucketed_cuckoo`", "`cuckoo_node_local`",
            "cuCollections `static_map` (peer)", "BGHT `bcht` (peer)", "BGHT `iht` (peer)",
            "SlabHash (peer)", "cuCollections `static_set` (peer)",
            "**best gpuhash**", "**best peer**", "**best gpuhash / best peer**"])

    def test_cells_are_the_rates(self):
        self.assertEqual(self.by_name["`linear_probing`"][self.column("0.5", "insert")], "10.00")
        self.assertEqual(self.by_name["`bucketed_cuckoo`"][self.column("0.95", "find-miss")],
                         "16.00")
        self.assertEqual(self.by_name["cuCollections `static_map` (peer)"]
                         [self.column("0.9", "find-miss")], "1.70")

    def test_slabhash_insert_is_its_unique_build(self):
        # The fixture's buildBulkWithUniqueKeys at 0.5 is 7.1 x (1.1 - 0.1); buildBulk 8.3.
        self.assertEqual(self.by_name["SlabHash (peer)"][self.column("0.5", "insert")], "7.10")
        self.assertIn("buildBulk (no duplicate check) 8.30", self.output)

    def test_failures_and_unverified_results_are_shown_and_explained(self):
        local = self.by_name["`cuckoo_node_local`"]
        self.assertEqual(local[self.column("0.5", "insert")], "4.00")
        self.assertEqual(local[self.column("0.8", "find-hit")], "failed")
        self.assertIn("`cuckoo_node_local`, loads 0.8, 0.9, 0.95: exit status 1: gpuhash-bench: "
                      "verification failed", self.output)
        bcht = self.by_name["BGHT `bcht` (peer)"]
        self.assertEqual(bcht[self.column("0.95", "insert")], "not verified")
        self.assertIn("BGHT `bcht` (peer), load 0.95: not verified", self.output)

    def test_best_rows_take_verified_rates_of_gpuhash_and_of_the_peer_maps(self):
        best_ours = self.by_name["**best gpuhash**"]
        best_peer = self.by_name["**best peer**"]
        ratio = self.by_name["**best gpuhash / best peer**"]
        # find-hit at 0.8: bucketed cuckoo 22 against cuco static_map 16, not
        # static_set's 17 (a set) nor SlabHash's (not n keys in n / load slots).
        at = self.column("0.8", "find-hit")
        self.assertEqual(best_ours[at], "22.00 bucketed_cuckoo")
        self.assertEqual(best_peer[at], "16.00 cuco static_map")
        self.assertEqual(ratio[at], "**1.38x**")
        # insert at 0.95: bcht is not verified there, so iht's 6.66 is best.
        at = self.column("0.95", "insert")
        self.assertEqual(best_peer[at], "6.66 BGHT iht")
        self.assertEqual(ratio[at], f"**{4.0 / 6.66:.2f}x**")
        # find-miss at 0.9: bcht's 7.3 beats iht's 7.0 and cuco's 1.7.
        at = self.column("0.9", "find-miss")
        self.assertEqual(best_peer[at], "7.30 BGHT bcht")
        self.assertEqual(ratio[at], f"**{17.0 / 7.3:.2f}x**")

    def test_the_summary_names_the_device_and_the_run(self):
        self.assertIn("Measured on Fixture GPU (synthetic numbers, not a measurement)",
                      self.output)
        self.assertIn("2026-11-28, gpuhash commit fixture", self.output)
        self.assertNotIn("Incomplete", self.output)

    def test_the_doc_section_is_replaced_and_the_rest_kept(self):
        with open(self.doc) as stream:
            text = stream.read()
        with open(DOC) as stream:
            original = stream.read()
        self.assertEqual(text.split(BEGIN)[0], original.split(BEGIN)[0])
        self.assertEqual(text.split(END)[1], original.split(END)[1])
        self.assertIn("| **best gpuhash / best peer** |", text)
        self.assertIn("![gpuhash and peers, Fixture GPU", text)
        # Rendering again gives the same doc.
        render(FIXTURE, "--doc", self.doc, "--plot-dir", self.plots)
        with open(self.doc) as stream:
            self.assertEqual(stream.read(), text)

    def test_the_plot_has_a_panel_per_operation_and_a_line_per_table(self):
        [name] = os.listdir(self.plots)
        self.assertTrue(name.startswith("peers_") and name.endswith(".svg"), name)
        self.assertIn(f"(plots/{name})", self.output)
        svg = ElementTree.parse(os.path.join(self.plots, name)).getroot()
        namespace = "{http://www.w3.org/2000/svg}"
        texts = [element.text for element in svg.iter(f"{namespace}text")]
        for title in ("insert", "find-hit", "find-miss"):
            self.assertIn(title, texts)
        # 8 tables x 3 panels, but cuckoo_node_local has one point per panel
        # (a line of one point still counts) and every table has a rate.
        lines = list(svg.iter(f"{namespace}polyline"))
        self.assertEqual(len(lines), 8 * 3)
        dashed = [line for line in lines if line.get("stroke-dasharray")]
        self.assertEqual(len(dashed), 5 * 3)


class Refusals(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.scratch)

    def write(self, name, lines):
        path = os.path.join(self.scratch, name)
        with open(path, "w") as stream:
            stream.writelines(json.dumps(line) + "\n" for line in lines)
        return path

    def fixture_lines(self):
        with open(FIXTURE) as stream:
            return [json.loads(line) for line in stream]

    def test_results_of_two_gpus_are_refused(self):
        lines = self.fixture_lines()
        lines[-1]["gpu_uuid"] = "GPU-another"
        result = render(self.write("two.jsonl", lines))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("come from 2 GPUs", result.stderr)

    def test_a_doc_without_the_section_is_refused_before_anything_is_written(self):
        doc = os.path.join(self.scratch, "doc.md")
        with open(doc, "w") as stream:
            stream.write("# a page without the markers\n")
        plots = os.path.join(self.scratch, "plots")
        result = render(FIXTURE, "--doc", doc, "--plot-dir", plots)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("needs one section to replace", result.stderr)
        self.assertFalse(os.path.exists(plots) and os.listdir(plots))

    def test_an_incomplete_run_says_so(self):
        lines = [line for line in self.fixture_lines()
                 if line.get("unit") != "bght_bench/bght/k32/n26/l0.9"]
        # Every design and peer is still known, so its missing cells show,
        # and the best-peer row has no best where one of its maps is missing.
        result = render(self.write("part.jsonl", lines))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("**Incomplete**: 90 of 96 cells measured", result.stdout)
        rows = {row[0]: row[1:] for row in table_rows(result.stdout)[1:]}
        at = 6  # 0.9 insert
        self.assertEqual(rows["BGHT `iht` (peer)"][at], "–")
        self.assertEqual(rows["**best peer**"][at], "not all measured")
        self.assertEqual(rows["**best gpuhash / best peer**"][at], "–")
        self.assertEqual(rows["**best gpuhash / best peer**"][at - 1], "**2.25x**")

    def test_a_line_not_written_by_peers_compare_is_refused(self):
        lines = self.fixture_lines()
        del lines[3]["unit"]
        result = render(self.write("raw.jsonl", lines))
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("without a unit", result.stderr)


class ResumePlan(unittest.TestCase):
    def plan(self, *arguments):
        result = subprocess.run(["bash", COMPARE, "--dry-run", "--jsonl", FIXTURE, *arguments],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)
        return [line.split()[-1] for line in result.stdout.splitlines()
                if line.startswith("to run")], result.stdout

    def test_units_in_the_file_are_not_run_again(self):
        to_run, output = self.plan("--designs", "linear_probing,cuckoo_node_local,bucketed_cuckoo")
        self.assertEqual(to_run, [])
        self.assertEqual(output.count("done"), 4 * 6)

    def test_a_load_or_design_the_file_lacks_is_run(self):
        to_run, _ = self.plan("--designs", "linear_probing,dachash", "--loads", "0.5,0.7",
                              "--peers", "cuco")
        self.assertEqual(to_run, ["gpuhash-bench/dachash/k32/n26/l0.5",
                                  "gpuhash-bench/linear_probing/k32/n26/l0.7",
                                  "gpuhash-bench/dachash/k32/n26/l0.7",
                                  "cuco_bench/cuco/k32/n26/l0.7"])

    def test_failed_units_run_again_only_when_asked(self):
        to_run, _ = self.plan("--designs", "cuckoo_node_local", "--peers", "none")
        self.assertEqual(to_run, [])
        to_run, _ = self.plan("--designs", "cuckoo_node_local", "--peers", "none",
                              "--retry-failed")
        self.assertEqual(to_run, [f"gpuhash-bench/cuckoo_node_local/k32/n26/l{load}"
                                  for load in ("0.8", "0.9", "0.95")])


if __name__ == "__main__":
    unittest.main(verbosity=2)
