"""HTTP views of the booking service."""

import json
import logging
from datetime import date, datetime

from .models import Booking, Room
from .store import BookingStore, NotFound

log = logging.getLogger(__name__)


def _json(status, payload):
    return status, {"Content-Type": "application/json"}, json.dumps(payload)


def _parse_date(value):
    try:
        return datetime.strptime(value, "%Y-%m-%d").date()
    except (TypeError, ValueError):
        return None


class RoomView:
    def __init__(self, store: BookingStore):
        self.store = store

    def list(self, request):
        rooms = self.store.rooms()
        payload = [{"id": r.id, "name": r.name, "seats": r.seats} for r in rooms]
        return _json(200, {"rooms": payload})

    def detail(self, request, room_id):
        try:
            room = self.store.room(room_id)
        except NotFound:
            return _json(404, {"error": "no such room"})
        return _json(200, {"id": room.id, "name": room.name, "seats": room.seats})

    def create(self, request):
        data = json.loads(request.body or "{}")
        name = data.get("name", "").strip()
        if not name:
            return _json(400, {"error": "name is required"})
        seats = int(data.get("seats", 4))
        room = self.store.add_room(Room(id=None, name=name, seats=seats))
        log.info("created room %s", room.id)
        return _json(201, {"id": room.id})


class BookingView:
    def __init__(self, store: BookingStore):
        self.store = store

    def list(self, request):
        day = _parse_date(request.args.get("day"))
        if day is None:
            day = date.today()
        bookings = self.store.bookings_on(day)
        payload = []
        for b in bookings:
            payload.append(
                {
                    "id": b.id,
                    "room": b.room_id,
                    "start": b.start.isoformat(),
                    "end": b.end.isoformat(),
                    "owner": b.owner,
                }
            )
        return _json(200, {"day": day.isoformat(), "bookings": payload})

    def create(self, request):
        data = json.loads(request.body or "{}")
        try:
            start = datetime.fromisoformat(data["start"])
            end = datetime.fromisoformat(data["end"])
        except (KeyError, ValueError):
            return _json(400, {"error": "start and end are required"})
        if end <= start:
            return _json(400, {"error": "end must be after start"})
        owner = data.get("owner") or request.user
        booking = Booking(id=None, room_id=data.get("room"), start=start, end=end, owner=owner)
        if self.store.overlaps(booking):
            return _json(409, {"error": "the room is already booked"})
        booking = self.store.add_booking(booking)
        log.info("booked room %s for %s", booking.room_id, owner)
        return _json(201, {"id": booking.id})

    def cancel(self, request, booking_id):
        try:
            booking = self.store.booking(booking_id)
        except NotFound:
            return _json(404, {"error": "no such booking"})
        if booking.owner != request.user and not request.is_admin:
            return _json(403, {"error": "not your booking"})
        self.store.remove_booking(booking_id)
        log.info("cancelled booking %s", booking_id)
        return _json(204, {})


def routes(store):
    rooms = RoomView(store)
    bookings = BookingView(store)
    return [
        ("GET", "/rooms", rooms.list),
        ("GET", "/rooms/<id>", rooms.detail),
        ("POST", "/rooms", rooms.create),
        ("GET", "/bookings", bookings.list),
        ("POST", "/bookings", bookings.create),
        ("DELETE", "/bookings/<id>", bookings.cancel),
    ]
