unit Facture;

{ Calcul des factures – version 3.2 }
{ Attention : les montants sont en € (euros), arrondis au centime. }

interface

type
  TLigne = record
    Libelle: string;
    Quantite: Integer;
    PrixUnitaire: Currency;
  end;

function TotalHT(const Lignes: array of TLigne): Currency;
function TotalTTC(const Lignes: array of TLigne; Taux: Double): Currency;
function Formater(Montant: Currency): string;

implementation

uses SysUtils;

function TotalHT(const Lignes: array of TLigne): Currency;
var
  I: Integer;
begin
  Result := 0;
  for I := Low(Lignes) to High(Lignes) do
    Result := Result + Lignes[I].Quantite * Lignes[I].PrixUnitaire;
end;

function TotalTTC(const Lignes: array of TLigne; Taux: Double): Currency;
begin
  { “TTC” = toutes taxes comprises }
  Result := TotalHT(Lignes) * (1 + Taux);
end;

function Formater(Montant: Currency): string;
begin
  Result := FormatFloat('#,##0.00', Montant) + ' €';
end;

end.
