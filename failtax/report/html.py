"""A self-contained HTML page: text, tables and matplotlib figures embedded as PNG.

Nothing is fetched when the page opens (no scripts, no fonts, no external images), so
the report reads the same offline, attached to an e-mail, or archived by a CI job.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["HtmlPage", "figure_to_data_uri"]

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#fafbfc}
main{max-width:1100px;margin:0 auto;padding:24px 28px 64px}
h1{font-size:26px;margin:8px 0 4px}h2{font-size:20px;margin:36px 0 8px;border-bottom:1px solid #dde2ea;padding-bottom:4px}
h3{font-size:16px;margin:20px 0 6px}.sub{color:#5b6577;margin:0 0 16px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{background:#fff;border:1px solid #dde2ea;border-radius:8px;padding:10px 14px;min-width:150px}
.card .k{font-size:12px;color:#5b6577;text-transform:uppercase;letter-spacing:.04em}.card .v{font-size:22px;font-weight:600}
.card .n{font-size:12px;color:#5b6577}.bad .v{color:#b3261e}.good .v{color:#1b7f3b}
table{border-collapse:collapse;margin:8px 0 16px;background:#fff;font-size:13px}
th,td{border:1px solid #dde2ea;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f0f3f7}
td.num{text-align:right;font-variant-numeric:tabular-nums}
figure{margin:12px 0 20px;background:#fff;border:1px solid #dde2ea;border-radius:8px;padding:8px}
figure img{max-width:100%;height:auto;display:block;margin:0 auto}figcaption{color:#5b6577;font-size:13px;margin-top:4px}
pre{background:#f0f3f7;padding:10px;border-radius:6px;overflow-x:auto;font-size:12.5px}
.note{color:#5b6577;font-size:13px}.flag{color:#b3261e;font-weight:600}
.nav{font-size:13px}.nav a{color:#0b5cad;text-decoration:none}
.banner{padding:10px 14px;border-radius:8px;margin:12px 0;font-weight:600}
.banner.bad{background:#fdecea;color:#8c1d18;border:1px solid #f3b8b3}.banner.good{background:#e8f5ec;color:#14532d;border:1px solid #b6dfc3}
"""


def figure_to_data_uri(fig: Any, *, dpi: int = 110) -> str:
    """Render a matplotlib figure to a ``data:image/png;base64,…`` URI and close it.

    A figure made through ``pyplot`` is closed there; one built as a plain
    ``matplotlib.figure.Figure`` (as :mod:`failtax.report.plots` does) needs no pyplot.
    """
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", facecolor="white")
    if getattr(fig.canvas, "manager", None) is not None:
        import matplotlib.pyplot as plt

        plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _esc(v: Any) -> str:
    return html.escape("" if v is None else str(v), quote=True)


def _fmt(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        if v != v:  # NaN
            return "–"
        return f"{v:.3f}" if abs(v) < 1000 else f"{v:,.0f}"
    if isinstance(v, list | tuple):
        return ", ".join(str(x) for x in v)
    return str(v)


@dataclass
class HtmlPage:
    """Collects sections in order and renders one HTML document."""

    title: str
    subtitle: str = ""
    parts: list[str] = field(default_factory=list)
    figures: int = 0

    def heading(self, text: str, *, level: int = 2, anchor: str | None = None) -> None:
        aid = f' id="{_esc(anchor)}"' if anchor else ""
        self.parts.append(f"<h{level}{aid}>{_esc(text)}</h{level}>")

    def paragraph(self, text: str, *, cls: str | None = None, key: str | None = None) -> None:
        """A paragraph of text (``key`` becomes its ``data-key`` attribute)."""
        c = f' class="{cls}"' if cls else ""
        dk = f' data-key="{_esc(key)}"' if key else ""
        self.parts.append(f"<p{c}{dk}>{_esc(text)}</p>")

    def links(self, items: Iterable[tuple[str, str]]) -> None:
        """A row of in-page links: ``(anchor, text)``."""
        self.parts.append('<p class="nav">' + " · ".join(
            f'<a href="#{_esc(a)}">{_esc(t)}</a>' for a, t in items) + "</p>")

    def cards(self, items: Iterable[Sequence[Any]]) -> None:
        """Key numbers as cards: ``(label, value, note, tone[, key])``.

        ``tone`` is ``good``/``bad``/None; ``key``, when given, is written as the value's
        ``data-key`` attribute so tools (and tests) can find a number on the page.
        """
        out = ['<div class="cards">']
        for item in items:
            label, value, note, tone = item[:4]
            key = item[4] if len(item) > 4 else None
            cls = f"card {tone}" if tone else "card"
            dk = f' data-key="{_esc(key)}"' if key else ""
            out.append(
                f'<div class="{cls}"><div class="k">{_esc(label)}</div>'
                f'<div class="v"{dk}>{_esc(value)}</div><div class="n">{_esc(note)}</div></div>'
            )
        out.append("</div>")
        self.parts.append("".join(out))

    def figure(self, fig: Any, caption: str, *, alt: str | None = None, name: str | None = None) -> None:
        """Embed a matplotlib figure (or an already rendered ``data:`` URI) as a PNG.

        ``name`` becomes the image's ``data-plot`` attribute.
        """
        uri = fig if isinstance(fig, str) else figure_to_data_uri(fig)
        if not uri.startswith("data:image/png;base64,"):
            raise ValueError("figure: expected a matplotlib figure or a data:image/png;base64 URI")
        self.figures += 1
        self.parts.append(
            f'<figure><img src="{uri}" alt="{_esc(alt or caption)}" data-plot="{_esc(name or self.figures)}">'
            f"<figcaption>{_esc(caption)}</figcaption></figure>"
        )

    def table(self, columns: Sequence[str], rows: Iterable[Sequence[Any]], *, max_rows: int = 50,
              key: str | None = None) -> None:
        """A table; ``key`` becomes its ``data-key`` attribute."""
        dk = f' data-key="{_esc(key)}"' if key else ""
        out = [f"<table{dk}><thead><tr>", *(f"<th>{_esc(c)}</th>" for c in columns), "</tr></thead><tbody>"]
        for i, row in enumerate(rows):
            if i >= max_rows:
                out.append(f'<tr><td colspan="{len(columns)}" class="note">… more rows in summary.json</td></tr>')
                break
            cells = []
            for v in row:
                cls = ' class="num"' if isinstance(v, int | float) and not isinstance(v, bool) else ""
                cells.append(f"<td{cls}>{_esc(_fmt(v))}</td>")
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        self.parts.append("".join(out))

    def banner(self, text: str, *, tone: str, key: str | None = None) -> None:
        """A highlighted line (``tone`` ``good`` or ``bad``), e.g. the scheduler checks."""
        dk = f' data-key="{_esc(key)}"' if key else ""
        self.parts.append(f'<p class="banner {_esc(tone)}"{dk}>{_esc(text)}</p>')

    def preformatted(self, text: str) -> None:
        self.parts.append(f"<pre>{_esc(text)}</pre>")

    def render(self) -> str:
        body = "\n".join(self.parts)
        sub = f'<p class="sub">{_esc(self.subtitle)}</p>' if self.subtitle else ""
        return (
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{_esc(self.title)}</title>"
            f"<style>{_CSS}</style></head><body><main><h1>{_esc(self.title)}</h1>{sub}\n{body}\n</main></body></html>\n"
        )
