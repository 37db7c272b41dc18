"""Job-level proof-number search of Hex and Rex positions on a Ray cluster.

The master (this process) holds the top of the proof tree: a proof-number
tree in negamax form, each node's proof number `phi` (the player to move
wins) and disproof number `delta`, so that a node's `phi` is the least
`delta` of its children and its `delta` the sum of their `phi`. It picks
the most-proving leaves, one per idle worker (a leaf being worked is
locked, and the next most-proving one is taken), and sends each as a job:
the Rust solver on one thread with a budget of expansions (the same answer
on any machine) or seconds. A job comes back proved or disproved, with a
winning move, or unknown, with its root's proof and disproof numbers; an
unknown leaf picked again is expanded into its children: the moves the
solver would search there (`darkhex.hex_moves`: inferior cells pruned, in
the solver's order), whose numbers start from their parent's answer, and
their jobs go out in turn. Proofs fold back up the tree.

Every answer is kept in a store keyed by the position's stones, one of the
two 180-degree images of the board (Hex and Rex are symmetric under it),
and the store is consulted before a job goes out: a position proved under
one opening is not searched again under another, and a run started again
with the same store (`out=`) sends no job it already did. The store is
written atomically every few seconds and when the run ends, however it
ends (Ctrl-C included).

The design follows job-level proof-number search (Wu, Lin, Sun, Chen and
Kishimoto) and the master/worker split of Pawlewicz and Hayward's
scalable parallel DFPN.
"""

import json
import math
import os
import tempfile
import time

import ray

import darkhex

# The solver's infinity: the proof number of a position that cannot be won.
INF = 2_000_000_000
STORE_FORMAT = "darkhex job store"
SAVE_EVERY = 2.0


def solve_job(game, moves, max_expansions, time_limit, tt_mb):
    """Solves one position on one thread within its budget (the work of a
    Ray task): the result as a dict, with the task's CPU seconds."""
    # A worker process runs one job at a time: its CPU time is the job's.
    cpu = time.process_time()
    r = darkhex.solve_hex(
        darkhex.load_game(game),
        moves=moves,
        threads=1,
        time_limit=time_limit,
        tt_mb=tt_mb,
        max_expansions=max_expansions,
    )
    return {
        "winner": r.winner,
        "to_move": r.to_move,
        "winning_move": r.winning_move,
        "phi": r.proof_number,
        "delta": r.disproof_number,
        "expansions": r.expansions,
        "seconds": r.seconds,
        "cpu": time.process_time() - cpu,
    }


class _Node:
    __slots__ = ("moves", "parent", "to_move", "phi", "delta", "children", "evaluated", "busy", "move")

    def __init__(self, moves, parent, to_move, phi, delta):
        self.moves = moves
        self.parent = parent
        self.to_move = to_move
        self.phi = phi
        self.delta = delta
        # None until expanded; then (cell, node) pairs.
        self.children = None
        # A job's answer (or the store's) set the numbers.
        self.evaluated = False
        self.busy = False
        # The winning move, once the player to move is known to win.
        self.move = None

    def solved(self):
        return self.phi == 0 or self.delta == 0


class Store:
    """Answers of jobs, keyed by position up to the 180-degree rotation.

    Each entry: whether the player to move wins (None: unknown), a winning
    move in the key's orientation (-1: none), the proof and disproof
    numbers, and the budget an unknown answer was found with (an unknown
    answer is only reused under the same budget).
    """

    def __init__(self, game, cells, path=None):
        self.game = str(game)
        self.cells = cells
        self.path = None if path is None else os.fspath(path)
        self.entries = {}
        self.saved_at = time.monotonic()
        self.dirty = False
        if self.path is not None and os.path.exists(self.path):
            self._load()

    def _load(self):
        try:
            with open(self.path) as f:
                held = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{self.path} is not a job store ({STORE_FORMAT}, JSON): {e}") from None
        if not isinstance(held, dict) or held.get("format") != STORE_FORMAT:
            raise ValueError(f"{self.path} is not a job store: it lacks format = {STORE_FORMAT!r}")
        if held.get("game") != self.game:
            raise ValueError(f"{self.path} holds positions of {held.get('game')}, not of {self.game}")
        entries = held.get("entries")
        if not isinstance(entries, dict) or not all(
            isinstance(v, list) and len(v) == 5 and v[0] in (True, False, None) for v in entries.values()
        ):
            raise ValueError(f"{self.path} is a damaged job store: each entry must be [wins, move, phi, delta, budget]")
        self.entries = entries

    def key(self, moves):
        """The position's key and whether it is the rotated image."""
        black = sorted(moves[0::2])
        white = sorted(moves[1::2])
        last = self.cells - 1
        turned = (sorted(last - c for c in black), sorted(last - c for c in white))
        plain = (black, white)
        rotated = turned < plain
        b, w = turned if rotated else plain
        return "b" + ",".join(map(str, b)) + "/w" + ",".join(map(str, w)), rotated

    def get(self, moves, budget):
        key, rotated = self.key(moves)
        e = self.entries.get(key)
        if e is None or (e[0] is None and e[4] != budget):
            return None
        wins, move, phi, delta, _ = e
        if move >= 0 and rotated:
            move = self.cells - 1 - move
        return wins, (move if move >= 0 else None), phi, delta

    def put(self, moves, wins, move, phi, delta, budget):
        key, rotated = self.key(moves)
        if move is not None and rotated:
            move = self.cells - 1 - move
        old = self.entries.get(key)
        if old is not None and old[0] is not None:
            return
        self.entries[key] = [wins, -1 if move is None else move, phi, delta, budget]
        self.dirty = True

    def save(self, force=False):
        if self.path is None or not self.dirty:
            return
        if not force and time.monotonic() - self.saved_at < SAVE_EVERY:
            return
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".job-store-")
        try:
            with os.fdopen(fd, "w") as f:
                json.dump({"format": STORE_FORMAT, "game": self.game, "entries": self.entries}, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        self.saved_at = time.monotonic()
        self.dirty = False

    def __len__(self):
        return len(self.entries)


class _Master:
    def __init__(self, game, roots, budget, time_limit, tt_mb, store, workers, max_jobs, progress, order):
        self.game = game
        self.name = str(game)
        self.budget = budget
        self.time_limit = time_limit
        self.tag = f"e{budget}" if budget is not None else f"t{time_limit}"
        self.tt_mb = tt_mb
        self.store = store
        self.workers = workers
        self.max_jobs = max_jobs
        self.progress = progress
        self.order = order
        self.stats = {"jobs": 0, "reused": 0, "expanded": 0, "nodes": 0, "job_seconds": 0.0, "job_cpu": 0.0}
        # Jobs out: key -> (ref, nodes waiting for its answer).
        self.out = {}
        self.sent_keys = []
        self.roots = [self._leaf(list(m), None, 1, 1) for m in roots]
        for r in self.roots:
            self._update(r)

    def _leaf(self, moves, parent, phi, delta):
        self.stats["nodes"] += 1
        state = self.game.new_state_from_history(moves)
        if state.is_terminal():
            # The player who just moved decided the game (Hex: won; Rex:
            # lost), and the one to move now has no move.
            mover = len(moves) % 2
            mover_wins = state.returns()[mover] > 0
            node = _Node(moves, parent, mover, 0 if mover_wins else INF, INF if mover_wins else 0)
            node.evaluated = True
            return node
        node = _Node(moves, parent, state.current_player(), phi, delta)
        self._recall(node)
        return node

    def _recall(self, node):
        held = self.store.get(node.moves, self.tag)
        if held is None:
            return False
        wins, move, phi, delta = held
        if wins is True:
            node.phi, node.delta, node.move = 0, INF, move
        elif wins is False:
            node.phi, node.delta = INF, 0
        else:
            node.phi, node.delta = max(1, phi), max(1, delta)
        node.evaluated = True
        self.stats["reused"] += 1
        return True

    def _expand(self, node):
        # The moves the solver itself would search, in its order: inferior
        # cells pruned. None come back for a position the engine decides at
        # once, which a job would have proved; then every empty cell.
        cells = darkhex.hex_moves(self.game, node.moves)
        if not cells:
            cells = self.order(self.game.new_state_from_history(node.moves).legal_actions())
        # Children start from their parent's answer: its delta is the sum of
        # their phi, its phi the least of their delta.
        phi = max(1, min(INF, node.delta) // max(1, len(cells)))
        delta = max(1, min(INF, node.phi))
        node.children = [(c, self._leaf(node.moves + [c], node, phi, delta)) for c in cells]
        self.stats["expanded"] += 1
        for _, child in node.children:
            if child.solved():
                self._update(child)
                if node.solved():
                    return
        self._update(node)

    def _update(self, node):
        """Recomputes the numbers from `node` up, storing what is proved."""
        while node is not None:
            if node.children is not None and not node.solved():
                phi = min(c.delta for _, c in node.children)
                delta = min(INF, sum(c.phi for _, c in node.children))
                node.phi, node.delta = phi, delta
                if phi == 0:
                    node.move = next(m for m, c in node.children if c.delta == 0)
            if node.solved():
                self.store.put(node.moves, node.phi == 0, node.move, node.phi, node.delta, self.tag)
                node.children = None
            node = node.parent

    def _pick(self, node):
        """The most-proving leaf under `node` that no job works on."""
        if node.solved() or node.busy:
            return None
        if node.children is None:
            if not node.evaluated:
                return node
            self._expand(node)
            if node.solved():
                return None
        for _, child in sorted(node.children, key=lambda mc: (mc[1].delta, mc[1].phi)):
            leaf = self._pick(child)
            if leaf is not None:
                return leaf
        return None

    def _send(self, leaf, job):
        key, _ = self.store.key(leaf.moves)
        leaf.busy = True
        if key in self.out:
            self.out[key][1].append(leaf)
            return
        ref = job.remote(self.name, leaf.moves, self.budget, self.time_limit, self.tt_mb)
        self.out[key] = (ref, [leaf])
        self.sent_keys.append(key)
        self.stats["jobs"] += 1

    def _fill(self, job):
        idle = True
        while idle:
            idle = False
            for root in self.roots:
                if len(self.out) >= self.workers or self._limit_reached():
                    return
                leaf = self._pick(root)
                if leaf is not None:
                    self._send(leaf, job)
                    idle = True

    def _limit_reached(self):
        return self.max_jobs is not None and self.stats["jobs"] >= self.max_jobs

    def _answer(self, key, r):
        _, nodes = self.out.pop(key)
        self.stats["job_seconds"] += r["seconds"]
        self.stats["job_cpu"] += r["cpu"]
        wins = None if r["winner"] is None else r["winner"] == r["to_move"]
        self.store.put(nodes[0].moves, wins, r["winning_move"], r["phi"], r["delta"], self.tag)
        for node in nodes:
            node.busy = False
            if node.solved():
                continue
            if wins is True:
                node.phi, node.delta, node.move = 0, INF, r["winning_move"]
            elif wins is False:
                node.phi, node.delta = INF, 0
            else:
                node.phi, node.delta = max(1, r["phi"]), max(1, r["delta"])
            node.evaluated = True
            self._update(node)

    def run(self, job):
        try:
            self._fill(job)
            while self.out:
                refs = {v[0]: k for k, v in self.out.items()}
                done, _ = ray.wait(list(refs), num_returns=1)
                for ref in done:
                    self._answer(refs[ref], ray.get(ref))
                self.store.save()
                if self.progress is not None:
                    self.progress(self.report())
                self._fill(job)
        finally:
            self.store.save(force=True)

    def report(self):
        return dict(
            self.stats,
            running=len(self.out),
            stored=len(self.store),
            solved=sum(r.solved() for r in self.roots),
            positions=len(self.roots),
        )

    def value(self, root):
        names = [self.game.action_to_string(0, a) for a in root.moves]
        if not root.solved():
            return {"moves": root.moves, "names": names, "winner": None, "to_move": root.to_move, "winning_move": None}
        mover_wins = root.phi == 0
        return {
            "moves": root.moves,
            "names": names,
            "winner": root.to_move if mover_wins else 1 - root.to_move,
            "to_move": root.to_move,
            "winning_move": root.move if mover_wins else None,
        }


def move_lists(game, positions):
    """Each position's moves (ids or names) as ids, checked here, once: a
    bad move fails the call, not a task on a worker."""
    lists = []
    for p in positions:
        state = game.new_initial_state()
        ids = []
        for m in p:
            a = m if isinstance(m, int) else game.parse_action(m)
            state.apply_action(a)
            ids.append(a)
        lists.append(ids)
    return lists


def _centre_first(game):
    """Orders the children of a position the engine decides at once (where
    it gives no moves of its own) centre first: on a square board, by
    distance from the centre; otherwise as given."""
    cells = game.num_distinct_actions()
    side = math.isqrt(cells)
    if side * side != cells:
        return lambda cells: cells
    mid = (side - 1) / 2

    def order(moves):
        return sorted(moves, key=lambda c: (abs(c // side - mid) + abs(c % side - mid), c))

    return order


def _search(game, positions, *, budget, time_limit, out, workers, tt_mb, max_jobs, progress, max_retries):
    g = darkhex.load_game(str(game))
    # Raises ValueError for a game solve_hex does not take.
    darkhex.solve_hex(g, moves=[], max_expansions=1, tt_mb=1)
    if budget is None and time_limit is None:
        raise ValueError("job_search needs a budget per job: budget (expansions) or time_limit (seconds)")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int) or budget < 1):
        raise ValueError(f"budget is a number of expansions, 1 or more, not {budget!r}")
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise ValueError(f"time_limit is a positive number of seconds, not {time_limit!r}")
    if max_jobs is not None and (not isinstance(max_jobs, int) or max_jobs < 0):
        raise ValueError(f"max_jobs is a number of jobs, 0 or more, not {max_jobs!r}")
    roots = move_lists(g, positions)
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers is a number of jobs at once, 1 or more, not {workers!r}")
    store = Store(g, g.num_distinct_actions(), out)
    if not ray.is_initialized():
        ray.init()
    if workers is None:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    job = ray.remote(num_cpus=1, max_retries=max_retries)(solve_job)
    master = _Master(g, roots, budget, time_limit, tt_mb, store, workers, max_jobs, progress, _centre_first(g))
    start = time.monotonic()
    master.run(job)
    stats = dict(master.report(), seconds=time.monotonic() - start, sent=list(master.sent_keys))
    return [master.value(r) for r in master.roots], stats


def job_search(
    game,
    moves=(),
    *,
    budget=2000,
    time_limit=None,
    out=None,
    workers=None,
    tt_mb=64,
    max_jobs=None,
    progress=None,
    max_retries=3,
):
    """Solves the Hex or Rex position `moves` (ids or names, from the empty
    board) by a job-level proof-number search over the Ray cluster (see
    the module's text). Each job is one solver search on one CPU of at
    most `budget` expansions (or `time_limit` seconds with `budget=None`)
    and a table of `tt_mb` megabytes; `workers` jobs run at once (default:
    the cluster's CPUs). `out` is the store's file: a run given the store
    of an earlier one sends none of its jobs again. `max_jobs` stops the
    search after that many jobs (the winner is then None if unproved).
    `progress(report)` hears of each answer: a dict of the jobs sent,
    answers reused from the store, leaves expanded, tree nodes, jobs
    running, store entries, and positions solved.

    Returns a dict: the moves (ids and names), the winner (0: Black), the
    player to move, a winning move when the player to move wins, and the
    run's counts (as `progress` hears them, with the wall `seconds`, the
    jobs' own `job_seconds` and `job_cpu` (CPU seconds), and `sent`, the
    keys of the positions sent).
    """
    [value], stats = _search(
        game,
        [list(moves)],
        budget=budget,
        time_limit=time_limit,
        out=out,
        workers=workers,
        tt_mb=tt_mb,
        max_jobs=max_jobs,
        progress=progress,
        max_retries=max_retries,
    )
    return dict(value, **stats)


def job_search_openings(
    game,
    positions=None,
    *,
    budget=2000,
    time_limit=None,
    out=None,
    workers=None,
    tt_mb=64,
    max_jobs=None,
    progress=None,
    max_retries=3,
):
    """`job_search` of several positions at once, one tree each, sharing
    the workers and the store: by default the openings `darkhex solve
    --openings` solves (one of each pair of 180-degree images). Returns a
    dict: `values`, one dict per position in order (as `job_search` gives,
    without the counts), and the run's counts.
    """
    g = darkhex.load_game(str(game))
    if positions is None:
        positions = [[c] for c in darkhex.opening_cells(g)]
    values, stats = _search(
        g,
        [list(p) for p in positions],
        budget=budget,
        time_limit=time_limit,
        out=out,
        workers=workers,
        tt_mb=tt_mb,
        max_jobs=max_jobs,
        progress=progress,
        max_retries=max_retries,
    )
    return dict(stats, values=values)
