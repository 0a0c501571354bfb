package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrConflict is returned when an update loses a race with another writer.
var ErrConflict = errors.New("conflicting update")

// Customer is a row of the customers table.
type Customer struct {
	ID        int64
	Name      string
	Email     string
	CreatedAt time.Time
	Version   int
}

// Order is a row of the orders table.
type Order struct {
	ID         int64
	CustomerID int64
	Total      int64
	Status     string
	PlacedAt   time.Time
}

// Store wraps the database handle.
type Store struct {
	db      *sql.DB
	timeout time.Duration
}

// Open returns a Store on db.
func Open(db *sql.DB) *Store {
	return &Store{db: db, timeout: 3 * time.Second}
}

func (s *Store) ctx(parent context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, s.timeout)
}

// Customer loads one customer by id.
func (s *Store) Customer(ctx context.Context, id int64) (*Customer, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	row := s.db.QueryRowContext(ctx,
		`SELECT id, name, email, created_at, version FROM customers WHERE id = $1`, id)
	var c Customer
	if err := row.Scan(&c.ID, &c.Name, &c.Email, &c.CreatedAt, &c.Version); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, fmt.Errorf("customer %d: %w", id, err)
	}
	return &c, nil
}

// Customers lists customers whose name starts with prefix.
func (s *Store) Customers(ctx context.Context, prefix string, limit int) ([]Customer, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, name, email, created_at, version FROM customers WHERE name LIKE $1 ORDER BY name LIMIT $2`,
		prefix+"%", limit)
	if err != nil {
		return nil, fmt.Errorf("customers: %w", err)
	}
	defer rows.Close()
	var out []Customer
	for rows.Next() {
		var c Customer
		if err := rows.Scan(&c.ID, &c.Name, &c.Email, &c.CreatedAt, &c.Version); err != nil {
			return nil, fmt.Errorf("customers: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CreateCustomer inserts c and sets its ID.
func (s *Store) CreateCustomer(ctx context.Context, c *Customer) error {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	c.Email = strings.ToLower(strings.TrimSpace(c.Email))
	err := s.db.QueryRowContext(ctx,
		`INSERT INTO customers (name, email, created_at, version) VALUES ($1, $2, now(), 1) RETURNING id, created_at`,
		c.Name, c.Email).Scan(&c.ID, &c.CreatedAt)
	if err != nil {
		return fmt.Errorf("create customer: %w", err)
	}
	c.Version = 1
	return nil
}

// UpdateCustomer writes c if nobody changed it since it was read.
func (s *Store) UpdateCustomer(ctx context.Context, c *Customer) error {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	res, err := s.db.ExecContext(ctx,
		`UPDATE customers SET name = $1, email = $2, version = version + 1 WHERE id = $3 AND version = $4`,
		c.Name, c.Email, c.ID, c.Version)
	if err != nil {
		return fmt.Errorf("update customer %d: %w", c.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("update customer %d: %w", c.ID, err)
	}
	if n == 0 {
		return ErrConflict
	}
	c.Version++
	return nil
}

// DeleteCustomer removes a customer and their orders.
func (s *Store) DeleteCustomer(ctx context.Context, id int64) error {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("delete customer %d: %w", id, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM orders WHERE customer_id = $1`, id); err != nil {
		return fmt.Errorf("delete orders of %d: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM customers WHERE id = $1`, id); err != nil {
		return fmt.Errorf("delete customer %d: %w", id, err)
	}
	return tx.Commit()
}

// Orders lists the orders of a customer, newest first.
func (s *Store) Orders(ctx context.Context, customerID int64) ([]Order, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	rows, err := s.db.QueryContext(ctx,
		`SELECT id, customer_id, total, status, placed_at FROM orders WHERE customer_id = $1 ORDER BY placed_at DESC`,
		customerID)
	if err != nil {
		return nil, fmt.Errorf("orders of %d: %w", customerID, err)
	}
	defer rows.Close()
	var out []Order
	for rows.Next() {
		var o Order
		if err := rows.Scan(&o.ID, &o.CustomerID, &o.Total, &o.Status, &o.PlacedAt); err != nil {
			return nil, fmt.Errorf("orders of %d: %w", customerID, err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// PlaceOrder inserts an order in status "new".
func (s *Store) PlaceOrder(ctx context.Context, o *Order) error {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	if o.Total <= 0 {
		return fmt.Errorf("place order: total must be positive, got %d", o.Total)
	}
	o.Status = "new"
	err := s.db.QueryRowContext(ctx,
		`INSERT INTO orders (customer_id, total, status, placed_at) VALUES ($1, $2, $3, now()) RETURNING id, placed_at`,
		o.CustomerID, o.Total, o.Status).Scan(&o.ID, &o.PlacedAt)
	if err != nil {
		return fmt.Errorf("place order: %w", err)
	}
	return nil
}

// SetOrderStatus moves an order to status.
func (s *Store) SetOrderStatus(ctx context.Context, id int64, status string) error {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	switch status {
	case "new", "paid", "shipped", "cancelled":
	default:
		return fmt.Errorf("set order status: unknown status %q", status)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE orders SET status = $1 WHERE id = $2`, status, id)
	if err != nil {
		return fmt.Errorf("set order status %d: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("set order status %d: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("set order status %d: no such order", id)
	}
	return nil
}

// Revenue sums the totals of paid and shipped orders placed since t.
func (s *Store) Revenue(ctx context.Context, since time.Time) (int64, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	var total sql.NullInt64
	err := s.db.QueryRowContext(ctx,
		`SELECT SUM(total) FROM orders WHERE status IN ('paid', 'shipped') AND placed_at >= $1`, since).Scan(&total)
	if err != nil {
		return 0, fmt.Errorf("revenue: %w", err)
	}
	return total.Int64, nil
}
