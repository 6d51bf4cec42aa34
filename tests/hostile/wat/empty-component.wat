;; A valid component with no imports and no exports. The host must refuse it
;; at load: it does not export toolvet:check/check.
(component)
