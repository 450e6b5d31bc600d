//! TOML through `toml_edit`: tables and keys the operations do not name keep their comments and layout. New parent
//! tables are implicit (no empty `[mcp_servers]` header), an entry becomes its own `[a.b]` table, and values that
//! are already equal are never reassigned, because reassigning drops the comment on that line.

use serde_json::Value;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike};

use super::{DocumentError, Format, Tree, shape_error};

/// A TOML document held as a lossless tree.
pub(crate) struct TomlTree {
    document: DocumentMut,
}

pub(crate) fn read_value(text: &str) -> Result<Value, DocumentError> {
    let document: DocumentMut = text.parse().map_err(parse_error)?;
    Ok(table_value(document.as_table()))
}

fn parse_error(error: toml_edit::TomlError) -> DocumentError {
    DocumentError::Parse {
        format: Format::Toml,
        message: error.to_string().trim_end().to_owned(),
    }
}

impl TomlTree {
    pub(crate) fn parse(text: &str) -> Result<Self, DocumentError> {
        Ok(Self {
            document: text.parse().map_err(parse_error)?,
        })
    }

    /// The item at `path`, a table or inline table, created (with its parents) when missing.
    fn container_at(&mut self, path: &[String]) -> Result<&mut Item, DocumentError> {
        let mut item = self.document.as_item_mut();
        for (depth, key) in path.iter().enumerate() {
            let inline = matches!(item, Item::Value(_));
            let found = item_kind(item);
            let table = item
                .as_table_like_mut()
                .ok_or_else(|| shape_error(&path[..depth], found, "a table"))?;
            if table.get(key).is_none() {
                let created = if inline {
                    Item::Value(toml_edit::Value::InlineTable(InlineTable::new()))
                } else {
                    let mut table = Table::new();
                    table.set_implicit(true);
                    Item::Table(table)
                };
                table.insert(key, created);
            }
            item = table.get_mut(key).expect("inserted above");
        }
        let found = item_kind(item);
        if item.is_table_like() {
            Ok(item)
        } else {
            Err(shape_error(path, found, "a table"))
        }
    }

    fn item_at(&self, path: &[String]) -> Option<&Item> {
        let mut item = self.document.as_item();
        for key in path {
            item = item.as_table_like()?.get(key)?;
        }
        Some(item)
    }
}

impl Tree for TomlTree {
    fn get(&self, path: &[String]) -> Option<Value> {
        self.item_at(path).map(item_value)
    }

    fn set(&mut self, path: &[String], value: &Value) -> Result<(), DocumentError> {
        let Some((last, parents)) = path.split_last() else {
            return Err(shape_error(&[], "table", "a value"));
        };
        let parent = self.container_at(parents)?;
        let item = if matches!(parent, Item::Value(_)) {
            Item::Value(toml_value(value))
        } else {
            toml_item(value)
        };
        let parent = parent
            .as_table_like_mut()
            .expect("container_at returns a table");
        match parent.get_mut(last) {
            Some(existing) => {
                let decor = existing.as_value().map(|old| old.decor().clone());
                *existing = item;
                if let (Some(decor), Some(new)) = (decor, existing.as_value_mut()) {
                    *new.decor_mut() = decor;
                }
            }
            None => {
                parent.insert(last, item);
            }
        }
        Ok(())
    }

    fn remove(&mut self, path: &[String]) -> bool {
        let Some((last, parents)) = path.split_last() else {
            return false;
        };
        let mut item = self.document.as_item_mut();
        for key in parents {
            match item
                .as_table_like_mut()
                .and_then(|table| table.get_mut(key))
            {
                Some(child) => item = child,
                None => return false,
            }
        }
        item.as_table_like_mut()
            .and_then(|table| table.remove(last))
            .is_some()
    }

    fn push(&mut self, path: &[String], text: &str) -> Result<(), DocumentError> {
        let Some((last, parents)) = path.split_last() else {
            return Err(shape_error(&[], "table", "an array"));
        };
        let parent = self
            .container_at(parents)?
            .as_table_like_mut()
            .expect("container_at returns a table");
        if parent.get(last).is_none() {
            parent.insert(last, Item::Value(toml_edit::Value::Array(Array::new())));
        }
        let item = parent.get_mut(last).expect("inserted above");
        let found = item_kind(item);
        let array = item
            .as_array_mut()
            .ok_or_else(|| shape_error(path, found, "an array"))?;
        array.push(text);
        Ok(())
    }

    fn remove_item(&mut self, path: &[String], text: &str) {
        let Some((last, parents)) = path.split_last() else {
            return;
        };
        let mut item = self.document.as_item_mut();
        for key in parents {
            match item
                .as_table_like_mut()
                .and_then(|table| table.get_mut(key))
            {
                Some(child) => item = child,
                None => return,
            }
        }
        if let Some(array) = item
            .as_table_like_mut()
            .and_then(|table| table.get_mut(last))
            .and_then(Item::as_array_mut)
        {
            array.retain(|element| element.as_str() != Some(text));
        }
    }

    fn render(&self) -> String {
        self.document.to_string()
    }
}

fn item_kind(item: &Item) -> &'static str {
    match item {
        Item::None => "nothing",
        Item::Table(_) | Item::Value(toml_edit::Value::InlineTable(_)) => "table",
        Item::ArrayOfTables(_) | Item::Value(toml_edit::Value::Array(_)) => "array",
        Item::Value(toml_edit::Value::String(_)) => "string",
        Item::Value(_) => "value",
    }
}

/// A new item for a table-like parent: objects become `[a.b]` tables, the rest plain values.
fn toml_item(value: &Value) -> Item {
    match value {
        Value::Object(map) => {
            let mut table = Table::new();
            for (key, child) in map {
                table.insert(key, toml_item(child));
            }
            Item::Table(table)
        }
        other => Item::Value(toml_value(other)),
    }
}

fn toml_value(value: &Value) -> toml_edit::Value {
    match value {
        Value::Null => toml_edit::Value::from(""),
        Value::Bool(flag) => toml_edit::Value::from(*flag),
        Value::Number(number) => match number.as_i64() {
            Some(integer) => toml_edit::Value::from(integer),
            None => toml_edit::Value::from(number.as_f64().unwrap_or_default()),
        },
        Value::String(text) => toml_edit::Value::from(text.as_str()),
        Value::Array(items) => toml_edit::Value::Array(items.iter().map(toml_value).collect()),
        Value::Object(map) => {
            let mut table = InlineTable::new();
            for (key, child) in map {
                table.insert(key, toml_value(child));
            }
            toml_edit::Value::InlineTable(table)
        }
    }
}

fn table_value(table: &dyn TableLike) -> Value {
    Value::Object(
        table
            .iter()
            .map(|(key, item)| (key.to_owned(), item_value(item)))
            .collect(),
    )
}

fn item_value(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Value(value) => plain_value(value),
        Item::Table(table) => table_value(table),
        Item::ArrayOfTables(tables) => {
            Value::Array(tables.iter().map(|table| table_value(table)).collect())
        }
    }
}

fn plain_value(value: &toml_edit::Value) -> Value {
    match value {
        toml_edit::Value::String(text) => Value::String(text.value().clone()),
        toml_edit::Value::Integer(integer) => Value::from(*integer.value()),
        toml_edit::Value::Float(float) => {
            serde_json::Number::from_f64(*float.value()).map_or(Value::Null, Value::Number)
        }
        toml_edit::Value::Boolean(flag) => Value::Bool(*flag.value()),
        toml_edit::Value::Datetime(datetime) => Value::String(datetime.value().to_string()),
        toml_edit::Value::Array(array) => Value::Array(array.iter().map(plain_value).collect()),
        toml_edit::Value::InlineTable(table) => table_value(table),
    }
}
