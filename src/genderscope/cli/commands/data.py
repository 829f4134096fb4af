"""``genderscope data list | fetch NAME|all | verify [NAME] | path NAME``: the benchmark
data sets (:mod:`genderscope.datasets.registry`).

Sets whose licence allows redistribution ship inside genderscope; the others are
downloaded on first use (or by ``data fetch``) into ``$GENDERSCOPE_CACHE/data`` and
verified by SHA-256. ``$GENDERSCOPE_DATA_MIRROR`` points every download at a mirror.
"""

from __future__ import annotations

import json

import typer
from rich.table import Table

from genderscope.cli.common import console
from genderscope.errors import GenderscopeError


def register(app: typer.Typer, run_app: typer.Typer) -> None:
    data_app = typer.Typer(help="The benchmark data sets: list, fetch, verify, locate.",
                           no_args_is_help=True, rich_markup_mode=None)
    app.add_typer(data_app, name="data")

    @data_app.command("list")
    def list_cmd(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """List every registered data set: version, where it is, licence, size. A set that
        $GENDERSCOPE_DATA holds is read from there first (whatever its status)."""
        from genderscope.datasets import registry as reg
        from genderscope.datasets.locations import DATA_ENV, data_roots

        def user_copy(name: str) -> str | None:
            return next((str(r / name) for r in data_roots() if (r / name).is_dir()), None)

        rows = [{"name": ds.name, "version": ds.version, "status": reg.status(ds),
                 "read_from_data_dir": user_copy(ds.name),
                 "licence": ds.licence, "licence_id": ds.licence_id,
                 "redistributable": ds.redistributable,
                 "bytes": ds.size, "files": len(ds.files), "source": ds.source_url}
                for ds in reg.registry().values()]
        if as_json:
            typer.echo(json.dumps(rows, indent=1))
            return
        table = Table("name", "version", "status", "licence", "size")
        for r in rows:
            status = r["status"] if r["read_from_data_dir"] is None else \
                f"{r['status']}; read from ${DATA_ENV} ({r['read_from_data_dir']})"
            table.add_row(r["name"], r["version"], status, r["licence_id"],
                          f"{r['bytes'] / 1e6:.2f} MB")
        console.print(table)

    @data_app.command("fetch")
    def fetch_cmd(names: list[str] = typer.Argument(..., help="Data set names, or all.")
                  ) -> None:
        """Download data sets (not packaged ones) into the cache, verified by SHA-256."""
        from genderscope.datasets import registry as reg
        from genderscope.datasets.registry_fetch import fetch

        for ds in reg.selected(names):
            where = reg.packaged_dir(ds)
            if where is not None:
                typer.echo(f"{ds.name}: packaged with genderscope ({where})")
                continue
            done = reg.cached_dir(ds)
            typer.echo(f"{ds.name}: {'already fetched' if done else 'fetched'} "
                       f"({done or fetch(ds)})")

    @data_app.command("verify")
    def verify_cmd(names: list[str] = typer.Argument(None, help="Data set names "
                                                     "[default: all].")) -> None:
        """Check the SHA-256 of every packaged and fetched file; exit 2 on a mismatch."""
        from genderscope.datasets import registry as reg
        from genderscope.datasets.registry_fetch import verify

        problems: list[str] = []
        n_checked = 0
        for ds in reg.selected(names or []):
            status = reg.status(ds)
            found = verify(ds)
            problems += found
            if status != "not fetched":
                n_checked += 1
            typer.echo(f"{ds.name}: {status}" + (f", {len(found)} bad file(s)" if found
                                                  else (", ok" if status != "not fetched"
                                                        else "")))
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise GenderscopeError(f"checksum mismatch: {problems[0]}{more}")
        typer.echo(f"{n_checked} data set(s) present, every file matches its SHA-256")

    @data_app.command("path")
    def path_cmd(name: str = typer.Argument(..., help="A data set name.")) -> None:
        """Print the data set's folder, found as measures find it.

        $GENDERSCOPE_DATA first, then the package, the cache, else fetched now."""
        from genderscope.datasets import registry as reg
        from genderscope.datasets.locations import find_benchmark

        typer.echo(str(find_benchmark(reg.get(name).name)))
