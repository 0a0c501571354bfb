use std::collections::HashMap;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Method {
    Get,
    Post,
    Delete,
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        };
        write!(f, "{}", name)
    }
}

pub type Handler = fn(&str) -> String;

#[derive(Default)]
pub struct Router {
    routes: HashMap<(String, String), Handler>,
}

impl Router {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, method: Method, path: &str, handler: Handler) {
        self.routes
            .insert((method.to_string(), path.to_string()), handler);
    }

    pub fn dispatch(&self, method: &Method, path: &str, body: &str) -> Option<String> {
        let key = (method.to_string(), path.to_string());
        match self.routes.get(&key) {
            Some(handler) => Some(handler(body)),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo(body: &str) -> String {
        body.to_string()
    }

    #[test]
    fn dispatches_known_route() {
        let mut r = Router::new();
        r.add(Method::Post, "/echo", echo);
        assert_eq!(r.dispatch(&Method::Post, "/echo", "hi"), Some("hi".to_string()));
    }
}
