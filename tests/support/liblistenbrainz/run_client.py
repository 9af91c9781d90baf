"""Every call of the real liblistenbrainz against a running Soundtrail (server/liblistenbrainz.test.ts).

Arguments come as JSON on stdin: base, owner {name, token}, fan {name, token}, stranger {name, token},
private_user (a person whose journey only followers see). Prints one line per check; exits 1 on the
first failure.
"""
import json
import sys
import time
import uuid

sys.path.insert(0, __import__("os").path.dirname(__file__))

import liblistenbrainz  # noqa: E402
import liblistenbrainz.client  # noqa: E402
from liblistenbrainz import Listen, errors  # noqa: E402

config = json.load(sys.stdin)
liblistenbrainz.client.API_BASE_URL = config["base"]
owner = config["owner"]
fan = config["fan"]
stranger = config["stranger"]


def check(name, condition, detail=""):
    if not condition:
        print(f"FAIL {name} {detail}", flush=True)
        sys.exit(1)
    print(f"ok {name}", flush=True)


def raises(call, exception):
    try:
        call()
    except exception:
        return True
    return False


def api_error(call):
    try:
        call()
    except errors.ListenBrainzAPIException as error:
        return error
    return None


client = liblistenbrainz.ListenBrainz()
check("is_token_valid (bad)", client.is_token_valid(str(uuid.uuid4())) is False)
check("is_token_valid (good)", client.is_token_valid(owner["token"]) is True)
check("set_auth_token refuses a bad token",
      raises(lambda: client.set_auth_token(str(uuid.uuid4())), errors.InvalidAuthTokenException))
client.set_auth_token(owner["token"])
check("set_auth_token", client._auth_token == owner["token"])

now = int(time.time())
playing = Listen(track_name="Hyperballad", artist_name="Björk", release_name="Post")
answer = client.submit_playing_now(playing)
check("submit_playing_now", answer == {"status": "ok"}, answer)
shown = client.get_playing_now(owner["name"])
check("get_playing_now", shown is not None and shown.track_name == "Hyperballad"
      and shown.artist_name == "Björk" and shown.release_name == "Post", vars(shown) if shown else None)

single = Listen(track_name="Hyperballad", artist_name="Björk", release_name="Post",
                listened_at=now - 30, additional_info={"duration_ms": 321000})
answer = client.submit_single_listen(single)
check("submit_single_listen", answer == {"status": "ok"}, answer)
check("get_playing_now after the single (the track ended)", client.get_playing_now(owner["name"]) is None)

many = [
    Listen(track_name=f"Track {i}", artist_name=["Broadcast", "Stereolab", "Autechre"][i % 3],
           release_name="Album" if i % 2 else None, listened_at=now - 10_000 + i * 60)
    for i in range(40)
]
answer = client.submit_multiple_listens(many)
check("submit_multiple_listens", answer == {"status": "ok"}, answer)

listens = client.get_listens(owner["name"])
check("get_listens (default 25, newest first)", len(listens) == 25
      and listens[0].track_name == "Hyperballad" and listens[0].listened_at == now - 30
      and all(a.listened_at >= b.listened_at for a, b in zip(listens, listens[1:])),
      [(l.track_name, l.listened_at) for l in listens[:3]])
check("get_listens gives each listen its recording_msid",
      all(l.recording_msid and uuid.UUID(l.recording_msid) for l in listens))
check("get_listens keeps the length", listens[0].additional_info.get("duration_ms") == 321000,
      listens[0].additional_info)
older = client.get_listens(owner["name"], max_ts=listens[-1].listened_at, count=10)
check("get_listens (max_ts, count)", len(older) == 10 and older[0].listened_at < listens[-1].listened_at)
newer = client.get_listens(owner["name"], min_ts=now - 10_000 + 35 * 60)
check("get_listens (min_ts)", [l.track_name for l in newer] == ["Hyperballad", "Track 39", "Track 38", "Track 37", "Track 36"],
      [l.track_name for l in newer])
check("get_user_listen_count", client.get_user_listen_count(owner["name"]) == 41)

victim = older[0]
answer = client.delete_listen(victim)
check("delete_listen", answer == {"status": "ok"}, answer)
check("get_user_listen_count after delete_listen", client.get_user_listen_count(owner["name"]) == 40)
check("the deleted listen is gone", all(
    not (l.listened_at == victim.listened_at and l.recording_msid == victim.recording_msid)
    for l in client.get_listens(owner["name"], count=100)))

mbid = "5e1b5b5c-1b89-4b2d-a0a8-5ab2c1e0d0b3"
answer = client.submit_user_feedback(1, mbid)
check("submit_user_feedback (love)", answer == {"status": "ok"}, answer)
feedback = client.get_user_feedback(owner["name"], score=1, metadata=True)
check("get_user_feedback", feedback["count"] == 1 and feedback["total_count"] == 1
      and feedback["feedback"][0]["recording_mbid"] == mbid and feedback["feedback"][0]["score"] == 1
      and feedback["feedback"][0]["user_id"] == owner["name"], feedback)
client.submit_user_feedback(0, mbid)
check("submit_user_feedback (0 forgets)", client.get_user_feedback(owner["name"], score=None, metadata=False)["total_count"] == 0)

artists = client.get_user_artists(owner["name"])
counts = {a["artist_name"]: a["listen_count"] for a in artists["payload"]["artists"]}
# Track 15 (Broadcast) was deleted above.
check("get_user_artists", counts == {"Broadcast": 13, "Stereolab": 13, "Autechre": 13, "Björk": 1}
      and artists["payload"]["total_artist_count"] == 4 and artists["payload"]["user_id"] == owner["name"],
      artists["payload"])
recordings = client.get_user_recordings(owner["name"], count=5, offset=0, time_range="all_time")
check("get_user_recordings", recordings["payload"]["count"] == 5
      and recordings["payload"]["range"] == "all_time", recordings["payload"])
releases = client.get_user_releases(owner["name"], time_range="this_year")
check("get_user_releases", releases is None or all(r["release_name"] == "Album" or r["release_name"] == "Post"
                                                    for r in releases["payload"]["releases"]), releases)
check("get_user_artists refuses an unknown range",
      raises(lambda: client.get_user_artists(owner["name"], time_range="fortnight"), errors.ListenBrainzException))
check("get_user_recommendation_recordings (none: 204)",
      client.get_user_recommendation_recordings(owner["name"]) is None)

# Another person's listens, as the journey's audience allows.
reader = liblistenbrainz.ListenBrainz()
reader.set_auth_token(fan["token"])
check("a follower reads get_listens", len(reader.get_listens(owner["name"], count=5)) == 5)
check("a follower reads get_user_listen_count", reader.get_user_listen_count(owner["name"]) == 40)
guest = liblistenbrainz.ListenBrainz()
error = api_error(lambda: guest.get_listens(owner["name"]))
check("a guest gets ListenBrainz's 401", error is not None and error.status_code == 401 and error.message, vars(error) if error else None)
outsider = liblistenbrainz.ListenBrainz()
outsider.set_auth_token(stranger["token"])
error = api_error(lambda: outsider.get_listens(owner["name"]))
check("a stranger gets ListenBrainz's 403", error is not None and error.status_code == 403, vars(error) if error else None)
error = api_error(lambda: outsider.get_listens("nobody_by_that_name"))
check("an unknown user is ListenBrainz's 404", error is not None and error.status_code == 404
      and error.message == "Cannot find user: nobody_by_that_name", vars(error) if error else None)
check("the stranger's own (empty) stats are None (204)", outsider.get_user_artists(stranger["name"]) is None)
check("the stranger's own listen count is 0", outsider.get_user_listen_count(stranger["name"]) == 0)
print("done", flush=True)
