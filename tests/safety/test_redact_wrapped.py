"""A provider token wrapped across lines is redacted, and the line after it keeps its text.

The joined pieces are matched by a provider row that is greedy past the token's documented
length, so ``ghp_…`` wrapped over two lines and then ``401 Unauthorized`` lost the ``401`` as
the token's "tail". The token may end at a line break when the lines so far already hold it
whole; a later line then belongs to it only if it starts with something token-like.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pokayokay.safety.redact import redact
from tests.helpers.secret_shapes import provider_tokens


@st.composite
def wrapped_then_status(draw: st.DrawFn) -> tuple[str, str, list[str]]:
    token = draw(provider_tokens())
    width = draw(st.integers(8, max(8, len(token) - 8)))
    pieces = [token[i : i + width] for i in range(0, len(token), width)]
    if len(pieces[-1]) < 8:
        pieces[-2:] = [pieces[-2] + pieces[-1]]
    joiner = draw(st.sampled_from(["\n", "\r\n", "\n  ", "\n> "]))
    status = str(draw(st.integers(100, 599)))
    after = f"{status} {draw(st.sampled_from(['Unauthorized', 'Forbidden', 'Bad credentials']))}"
    lead = draw(st.sampled_from(["token: ", "export GH_TOKEN=", "using credentials ", ""]))
    return f"request failed\n{lead}{joiner.join(pieces)}\n{after}\nretrying", after, pieces


@given(wrapped_then_status())
def test_the_line_after_a_wrapped_token_keeps_its_text(case: tuple[str, str, list[str]]) -> None:
    text, after, pieces = case
    out = redact(text)
    assert out.endswith(f"\n{after}\nretrying"), out
    assert "".join(pieces) not in out.replace("\n", "").replace("\r", "")
    assert "[redacted:" in out


def test_a_github_token_wrapped_over_two_lines_keeps_the_status_code() -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    text = f"token: {token[:20]}\n{token[20:]}\n401 Unauthorized"
    assert redact(text) == "token: [redacted:github-token]\n\n401 Unauthorized"


def test_a_wrapped_token_after_dotted_capital_i_is_cut_at_its_own_place() -> None:
    # "İ".lower() is two characters: offsets found in a plain lower case would land further on.
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    text = "İ" * 30 + f" token: {token[:20]}\n{token[20:]}\n401 Unauthorized"
    assert redact(text) == "İ" * 30 + " token: [redacted:github-token]\n\n401 Unauthorized"
