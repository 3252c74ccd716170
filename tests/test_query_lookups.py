"""The read layer's lookups: one error type and one message per kind, raised the same way everywhere."""
import pytest

from corpuskit.errors import NotFoundError, ValidationError
from corpuskit.query import (EntityNotFound, SignalNotFound, StoryNotFound, TopicNotFound, entities_named,
                             entity_id, entity_row, parse_story_id, resolve_entity_key, resolve_story_slug,
                             signal_row, story_version_by_slug, topic_by_name)


def test_each_kind_has_its_error_and_message(corpus):
    conn = corpus.conn
    cases = [
        (lambda: topic_by_name(conn, "nope"), TopicNotFound, "Topic not found: unknown topic 'nope'"),
        (lambda: entity_row(conn, 5), EntityNotFound, "Entity not found: 5"),
        (lambda: entities_named(conn, "Nobody"), EntityNotFound, "Entity not found: 'Nobody'"),
        (lambda: entity_id(conn, "nobody"), EntityNotFound, "Entity not found: 'nobody'"),
        (lambda: resolve_story_slug(conn, "gone"), StoryNotFound,
         "Narrative not found: no story has slug or id 'gone'"),
        (lambda: story_version_by_slug(conn, "gone"), StoryNotFound,
         "Narrative not found: no story has slug or id 'gone'"),
        (lambda: parse_story_id("x"), StoryNotFound, "Narrative not found: no story has slug or id 'x'"),
        (lambda: signal_row(conn, 99999), SignalNotFound, "Signal not found: signal 99999"),
    ]
    for call, error, message in cases:
        with pytest.raises(error) as caught:
            call()
        assert isinstance(caught.value, NotFoundError)
        assert str(caught.value).startswith(message)
    assert not issubclass(EntityNotFound, ValidationError)   # only a topic filter is also a bad value


@pytest.mark.parametrize("key", ["", "   ", "99999999999999999999999", "²", "x-99999999999999999999999"])
def test_entity_keys_that_name_nothing(corpus, key):
    with pytest.raises(EntityNotFound):
        resolve_entity_key(corpus.conn, key)
