/*
 * ring.c - a fixed-size ring buffer of bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"

struct ring {
	unsigned char *buf;
	size_t size;
	size_t head;
	size_t tail;
	size_t used;
};

struct ring *ring_new(size_t size)
{
	struct ring *r;

	if (size == 0) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return NULL;
	r->buf = malloc(size);
	if (r->buf == NULL) {
		free(r);
		return NULL;
	}
	r->size = size;
	return r;
}

size_t ring_write(struct ring *r, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t n = 0;

	while (n < len && r->used < r->size) {
		r->buf[r->head] = p[n++];
		r->head = (r->head + 1) % r->size;
		r->used++;
	}
	return n;
}

size_t ring_read(struct ring *r, void *out, size_t len)
{
	unsigned char *p = out;
	size_t n = 0;

	while (n < len && r->used > 0) {
		p[n++] = r->buf[r->tail];
		r->tail = (r->tail + 1) % r->size;
		r->used--;
	}
	return n;
}

void ring_free(struct ring *r)
{
	if (r == NULL)
		return;
	free(r->buf);
	free(r);
}
