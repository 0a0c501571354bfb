package report

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Row is one line of a report.
type Row struct {
	Region string  `json:"region" db:"region"`
	Month  string  `json:"month" db:"month"`
	Total  float64 `json:"total" db:"total"`
}

const monthlyQuery = `
SELECT region, to_char(placed_at, 'YYYY-MM') AS month, SUM(total) AS total
FROM orders
WHERE placed_at >= $1
GROUP BY region, month
ORDER BY region, month`

// Monthly returns the totals per region and month since from.
func Monthly(ctx context.Context, db *sql.DB, from string) ([]Row, error) {
	rows, err := db.QueryContext(ctx, monthlyQuery, from)
	if err != nil {
		return nil, fmt.Errorf("monthly report: %w", err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		if err := rows.Scan(&r.Region, &r.Month, &r.Total); err != nil {
			return nil, fmt.Errorf("monthly report: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// CSV renders rows as comma-separated lines with a header.
func CSV(rows []Row) string {
	var b strings.Builder
	b.WriteString("region,month,total\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%s,%s,%.2f\n", r.Region, r.Month, r.Total)
	}
	return b.String()
}
