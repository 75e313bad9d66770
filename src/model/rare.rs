//! Fields few values have, kept behind one pointer that exists only while
//! one of them is set (a report step's extras, a span's model and usage;
//! issue 25): the owner stays small, and equality does not depend on how
//! the fields got their values.

/// Apply `edit` to the fields in `slot`: in place when boxed, on the stack
/// otherwise (boxed only if the edit set something); the box goes once
/// every field is back to its default.
pub(crate) fn edit<T: Default + PartialEq>(slot: &mut Option<Box<T>>, edit: impl FnOnce(&mut T)) {
    if let Some(fields) = slot {
        edit(fields);
        if **fields == T::default() {
            *slot = None;
        }
    } else {
        let mut fields = T::default();
        edit(&mut fields);
        if fields != T::default() {
            *slot = Some(Box::new(fields));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::edit;

    #[derive(Debug, Default, PartialEq)]
    struct Two {
        a: Option<u8>,
        b: bool,
    }

    #[test]
    fn a_box_exists_only_while_a_field_is_set() {
        let mut slot: Option<Box<Two>> = None;
        edit(&mut slot, |f| f.a = None);
        assert!(slot.is_none());
        edit(&mut slot, |f| f.a = Some(1));
        let at: *const Two = &raw const **slot.as_ref().unwrap();
        edit(&mut slot, |f| f.b = true);
        // Edited where it is, not moved to a new box.
        assert_eq!(&raw const **slot.as_ref().unwrap(), at);
        assert_eq!(
            slot.as_deref(),
            Some(&Two {
                a: Some(1),
                b: true
            })
        );
        edit(&mut slot, |f| *f = Two::default());
        assert!(slot.is_none());
    }
}
