"""A tiny seeded corpus for the narrative tests, written straight into the tables.

It stands in for the enrichment and analysis stages: three beats, ~90 records
over 20 days from four source kinds, sentiment, topic assignments, entities
with mentions, five signals with record evidence, and one cluster.
"""
from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone

from corpuskit.clock import iso

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
SOURCES = ("reddit", "hackernews", "news", "bluesky")

TOPICS = (
    # name, display, category, keywords
    ("chips", "Chips and Compute", "technology", ["gpu", "chip", "fab"]),
    ("ai-policy", "AI Policy", "policy", ["regulation", "act", "policy"]),
    ("climate", "Climate", "science", ["emissions", "heat", "carbon"]),
)

ENTITIES = (
    # slug, name, type, topic
    ("nvidia", "Nvidia", "org", "chips"),
    ("zephyr-labs", "Zephyr Labs", "org", "chips"),
    ("eu-commission", "EU Commission", "org", "ai-policy"),
    ("openai", "OpenAI", "org", "ai-policy"),
    ("ipcc", "IPCC", "org", "climate"),
)

SENTENCES = {
    "chips": [
        "{e} announced a new accelerator that doubles memory bandwidth for training clusters.",
        "Analysts expect supply of advanced packaging to stay tight through the next quarter.",
        "Several cloud providers said their GPU waiting lists grew again this month.",
        "The new fab in Arizona is running behind schedule according to local reports.",
        "Engineers on the thread compared the chip's power draw with last year's flagship.",
        "{e} shares moved sharply after the keynote ended on Tuesday.",
        "Benchmarks posted by early testers show large gains on inference workloads.",
        "Export rules continue to shape where the most capable chips can be sold.",
    ],
    "ai-policy": [
        "The {e} published a draft code of practice for general purpose models.",
        "Civil society groups argued the draft leaves too many exemptions for large labs.",
        "Lawmakers are expected to vote on the amendments before the summer recess.",
        "{e} said it would comply with the transparency obligations in the act.",
        "Critics warned that the compliance burden falls hardest on small startups.",
        "A leaked memo suggests enforcement will start with the largest providers.",
        "Researchers asked for clearer rules on access to training data for audits.",
    ],
    "climate": [
        "The {e} report finds that last year was the warmest on record by a wide margin.",
        "Heat waves across southern Europe pushed electricity demand to new highs.",
        "Carbon emissions from shipping rose despite new efficiency standards.",
        "Several cities announced cooling centres ahead of the weekend forecast.",
        "Scientists cautioned that one hot year does not by itself show a trend change.",
        "Insurers are raising premiums in regions exposed to wildfire risk.",
    ],
}


def _text(rng, topic, entity_name, n):
    pool = SENTENCES[topic]
    picks = rng.sample(range(len(pool)), n)
    return " ".join(pool[i].format(e=entity_name) for i in picks)


def build_fixture(corpus, seed: int = 0, records_per_topic: int = 30) -> dict:
    """Fill ``corpus`` with the seeded mini corpus; returns ids by name for the tests."""
    rng = random.Random(seed)
    conn = corpus.conn
    ids = {"topics": {}, "entities": {}, "records": {t[0]: [] for t in TOPICS}, "signals": {}}
    with corpus.transaction():
        for name, display, category, keywords in TOPICS:
            cur = conn.execute(
                "INSERT INTO topics(name, display_name, category, keywords, created_at) VALUES (?,?,?,?,?)",
                (name, display, category, json.dumps(keywords), iso(START)),
            )
            ids["topics"][name] = cur.lastrowid
        for slug, name, etype, _ in ENTITIES:
            cur = conn.execute(
                "INSERT INTO entities(slug, name, type, updated_at) VALUES (?,?,?,?)",
                (slug, name, etype, iso(START)),
            )
            ids["entities"][slug] = cur.lastrowid
        n = 0
        for topic, _, _, _ in TOPICS:
            topic_entities = [e for e in ENTITIES if e[3] == topic]
            for i in range(records_per_topic):
                n += 1
                ent = topic_entities[i % len(topic_entities)]
                at = START + timedelta(days=i * 19 / records_per_topic, hours=rng.randrange(24))
                source = SOURCES[(i + len(topic)) % len(SOURCES)]
                text = _text(rng, topic, ent[1], 3 + i % 3)
                if i % 7 == 0:
                    text += f" Full coverage at https://example.org/{topic}/{i} for readers."
                title = text.split(".")[0][:70] if source in ("news", "hackernews") else ""
                meta = {"score": (i * 37) % 400} if source in ("reddit", "hackernews") else {}
                cur = conn.execute(
                    "INSERT INTO records(source, source_id, content_hash, title, content_text, url, "
                    "author, published_at, captured_at, metadata) VALUES (?,?,?,?,?,?,?,?,?,?)",
                    (source, f"{topic}-{i}", f"h{n}", title, text,
                     f"https://{source}.example.com/{topic}/{i}", f"user{i % 5}", iso(at), iso(at),
                     json.dumps(meta)),
                )
                rid = cur.lastrowid
                ids["records"][topic].append(rid)
                score = round(rng.uniform(-1, 1), 3)
                label = "positive" if score > 0.2 else "negative" if score < -0.2 else "neutral"
                conn.execute(
                    "INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, run_id) "
                    "VALUES (?,?,?,?,?)", (rid, score, label, ids["topics"][topic], "enrich-1"))
                conn.execute("INSERT INTO topic_assignments VALUES (?,?,?)",
                             (rid, ids["topics"][topic], 0.9))
                if ent[1] in text:
                    conn.execute("INSERT INTO mentions VALUES (?,?,?,?,?)",
                                 (rid, ids["entities"][ent[0]], ent[1], text.count(ent[1]), "[0]"))
        conn.execute(
            "UPDATE entities SET mention_count = (SELECT coalesce(sum(mention_count), 0) "
            "FROM mentions m WHERE m.entity_id = entities.id)")
        now = corpus.now()
        chips, policy, climate = (ids["records"][t] for t in ("chips", "ai-policy", "climate"))
        signals = (
            # key, kind, topic, entity, severity, sigma, headline, days before now, status, evidence
            ("sig-chips-spike", "volume_spike", "chips", None, "high", 5.2,
             "Chips and Compute volume 3.1x its baseline", 1, "open", chips[-5:]),
            ("sig-policy-shift", "sentiment_shift", "ai-policy", None, "medium", 3.4,
             "AI Policy sentiment turns negative", 0, "open", policy[-1:]),
            ("sig-zephyr-novelty", "novelty", "chips", "zephyr-labs", "medium", 3.1,
             "Zephyr Labs newly prominent on Chips and Compute", 2, "open", chips[-4:-1]),
            ("sig-climate-div", "divergence", "climate", None, "low", 2.1,
             "reddit and news diverge on Climate", 3, "open", climate[-3:]),
            ("sig-climate-spike", "volume_spike", "climate", None, "high", 4.4,
             "Climate volume 2.5x its baseline", 12, "resolved", climate[10:14]),
        )
        for key, kind, topic, ent, sev, sigma, head, back, status, evidence in signals:
            detected = iso(now - timedelta(days=back))
            cur = conn.execute(
                "INSERT INTO signals(signal_key, kind, topic_id, entity_id, severity, sigma_score, "
                "headline, detail, detected_at, status, resolved_at, run_id, updated_at) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (key, kind, ids["topics"][topic], ids["entities"].get(ent), sev, sigma, head,
                 json.dumps({"multiplier": 3.1} if kind == "volume_spike" else {}), detected, status,
                 iso(now) if status == "resolved" else None, "analyse-1", detected),
            )
            ids["signals"][key] = cur.lastrowid
            for rid in evidence:
                conn.execute("INSERT INTO signal_evidence VALUES (?, 'record', ?)", (cur.lastrowid, rid))
        cur = conn.execute(
            "INSERT INTO clusters(run_id, topic_id, cluster_label, lineage_id, record_count, top_terms, "
            "summary_label, created_at) VALUES (?,?,?,?,?,?,?,?)",
            ("analyse-1", ids["topics"]["chips"], 0, "lin-chips-0", 12,
             json.dumps(["gpu", "accelerator", "bandwidth"]), "gpu accelerator bandwidth", iso(now)),
        )
        ids["cluster"] = cur.lastrowid
        for rid in chips[-12:]:
            conn.execute("INSERT INTO cluster_members VALUES (?, ?)", (cur.lastrowid, rid))
    return ids


def add_records(corpus, ids: dict, topic: str, count: int, days_after: float = 1.0, seed: int = 1):
    """Append ``count`` new records on ``topic`` after the corpus clock (enriched, assigned)."""
    rng = random.Random(seed)
    conn = corpus.conn
    base = corpus.now()
    added = []
    with corpus.transaction():
        for i in range(count):
            at = base + timedelta(days=days_after, hours=i)
            text = _text(rng, topic, "Nvidia" if topic == "chips" else "OpenAI", 4)
            cur = conn.execute(
                "INSERT INTO records(source, source_id, content_hash, content_text, author, published_at, "
                "captured_at) VALUES (?,?,?,?,?,?,?)",
                ("reddit", f"new-{topic}-{seed}-{i}", f"new{seed}-{i}", text, "newcomer", iso(at), iso(at)),
            )
            rid = cur.lastrowid
            conn.execute("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, "
                         "run_id) VALUES (?,?,?,?,?)", (rid, 0.1, "neutral", ids["topics"][topic], "enrich-2"))
            conn.execute("INSERT INTO topic_assignments VALUES (?,?,?)", (rid, ids["topics"][topic], 0.8))
            added.append(rid)
    ids["records"][topic].extend(added)
    return added
