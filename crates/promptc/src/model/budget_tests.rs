//! Unit tests of `model::budget`.

use super::*;
use serde_json::json;

#[test]
fn amounts() {
    assert_eq!(parse_amount(&json!(12000)).unwrap(), Amount { limit: 12000, unit: Unit::Tokens });
    assert_eq!(parse_amount(&json!({"bytes": 10})).unwrap(), Amount { limit: 10, unit: Unit::Bytes });
    assert!(parse_amount(&json!(-5)).unwrap_err().contains("0 or more"));
    assert!(parse_amount(&json!(1.5)).unwrap_err().contains("whole number"));
    assert!(parse_amount(&json!("lots")).unwrap_err().contains("must be a number"));
    assert!(parse_amount(&json!({"words": 3})).unwrap_err().contains("unknown budget unit"));
    assert!(parse_amount(&json!({"bytes": 1, "tokens": 2})).is_err());
}
