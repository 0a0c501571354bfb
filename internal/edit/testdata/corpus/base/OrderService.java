package com.example.orders;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

public class OrderService {

    private final OrderRepository repository;
    private final PriceCalculator calculator;

    public OrderService(OrderRepository repository, PriceCalculator calculator) {
        this.repository = repository;
        this.calculator = calculator;
    }

    public Order place(Customer customer, List<LineItem> items) {
        if (items == null || items.isEmpty()) {
            throw new IllegalArgumentException("an order needs at least one item");
        }
        Order order = new Order(customer);
        for (LineItem item : items) {
            order.add(item);
        }
        order.setTotal(calculator.total(items));
        return repository.save(order);
    }

    public Optional<Order> find(long id) {
        return repository.findById(id);
    }

    public List<Order> openOrders(Customer customer) {
        List<Order> result = new ArrayList<>();
        for (Order order : repository.findByCustomer(customer)) {
            if (!order.isClosed()) {
                result.add(order);
            }
        }
        return result;
    }

    public BigDecimal refund(Order order) {
        if (order.isClosed()) {
            throw new IllegalStateException("order " + order.getId() + " is closed");
        }
        BigDecimal amount = order.getTotal();
        order.close();
        repository.save(order);
        return amount;
    }
}
